package ollamatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// ScriptFile is a script in its JSON form, read by the scripted-ollama
// program and by tests that keep scripts in testdata. The package doc
// shows a complete example; every field is optional.
type ScriptFile struct {
	Models        []Model      `json:"models"`
	Pullable      []Model      `json:"pullable"`
	Latency       Duration     `json:"latency"`
	Slots         int          `json:"slots"`
	MaxQueue      int          `json:"max_queue"`
	DefaultNumCtx int          `json:"default_num_ctx"`
	Version       string       `json:"version"`
	Rules         []ScriptRule `json:"rules"`
	Queue         []ScriptTurn `json:"queue"`
	Default       *ScriptTurn  `json:"default"`
}

// ScriptRule is a rule in a script file: when every condition of When
// holds, answer with Reply (in order, the last repeating), at most Times
// times when Times is positive.
type ScriptRule struct {
	When  ScriptWhen   `json:"when"`
	Times int          `json:"times"`
	Reply []ScriptTurn `json:"reply"`
}

// ScriptWhen lists a rule's conditions; all set ones must hold, and an
// empty ScriptWhen matches every call. The booleans can also demand
// absence: "has_tools": false matches calls that offer no tools.
type ScriptWhen struct {
	LastUserContains   string `json:"last_user_contains"`
	LastUserMatches    string `json:"last_user_matches"`
	UserContains       string `json:"user_contains"`
	SystemContains     string `json:"system_contains"`
	ToolResultFrom     string `json:"tool_result_from"`
	ToolResultContains string `json:"tool_result_contains"`
	HasToolResult      *bool  `json:"has_tool_result"`
	HasTools           *bool  `json:"has_tools"`
	OffersTool         string `json:"offers_tool"`
	HasFormat          *bool  `json:"has_format"`
	Model              string `json:"model"`

	re *regexp.Regexp
}

// ScriptTurn is a Turn in a script file. JSON, when set, is the answer's
// content as compact JSON (for calls that ask for a format); it cannot be
// combined with Content.
type ScriptTurn struct {
	Content         string           `json:"content"`
	JSON            json.RawMessage  `json:"json"`
	Thinking        string           `json:"thinking"`
	ToolCalls       []ScriptToolCall `json:"tool_calls"`
	DoneReason      string           `json:"done_reason"`
	PromptEvalCount int              `json:"prompt_eval_count"`
	EvalCount       int              `json:"eval_count"`
	Delay           Duration         `json:"delay"`
	Status          int              `json:"status"`
	Error           string           `json:"error"`
	StreamError     bool             `json:"stream_error"`
	Hang            bool             `json:"hang"`
	Drop            bool             `json:"drop"`
}

// ScriptToolCall is a tool call in a script file.
type ScriptToolCall = canned.ToolCall

// Duration is a time.Duration written as a Go duration string ("200ms", "1.5s").
type Duration = canned.Duration

// ReadScriptFile reads and checks a script file.
func ReadScriptFile(path string) (*ScriptFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read script %s: %w", path, err)
	}
	return ParseScript(path, data)
}

// ParseScript parses and checks a script; name (usually the path) prefixes
// errors, which give line and column where the JSON is at fault. Unknown
// fields are errors, so a misspelt condition cannot silently match
// everything. icm demo's canned model reads its script the same way.
func ParseScript(name string, data []byte) (*ScriptFile, error) {
	var f ScriptFile
	if err := canned.DecodeScript(name, data, &f); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: invalid script: %w (see the ollamatest package doc for the format)", name, err)
	}
	return &f, nil
}

// check validates what JSON decoding cannot, and compiles the patterns.
func (f *ScriptFile) check() error {
	if f.Slots < 0 || f.MaxQueue < 0 || f.DefaultNumCtx < 0 {
		return errors.New("slots, max_queue and default_num_ctx must not be negative")
	}
	for i, m := range f.Models {
		if strings.TrimSpace(m.Name) == "" {
			return fmt.Errorf("models[%d] has no name", i)
		}
	}
	for i, m := range f.Pullable {
		if strings.TrimSpace(m.Name) == "" {
			return fmt.Errorf("pullable[%d] has no name", i)
		}
	}
	for i := range f.Rules {
		r := &f.Rules[i]
		if len(r.Reply) == 0 {
			return fmt.Errorf("rules[%d] has no reply", i)
		}
		if p := r.When.LastUserMatches; p != "" {
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("rules[%d].when.last_user_matches: %w", i, err)
			}
			r.When.re = re
		}
		for j, t := range r.Reply {
			if err := t.check(); err != nil {
				return fmt.Errorf("rules[%d].reply[%d]: %w", i, j, err)
			}
		}
	}
	for i, t := range f.Queue {
		if err := t.check(); err != nil {
			return fmt.Errorf("queue[%d]: %w", i, err)
		}
	}
	if f.Default != nil {
		if err := f.Default.check(); err != nil {
			return fmt.Errorf("default: %w", err)
		}
	}
	return nil
}

// check validates one turn.
func (t ScriptTurn) check() error {
	if len(t.JSON) > 0 && t.Content != "" {
		return errors.New("set content or json, not both")
	}
	if t.Status != 0 && (t.Status < 400 || t.Status > 599) {
		return fmt.Errorf("status %d is not an HTTP error status (400-599)", t.Status)
	}
	for i, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool_calls[%d] has no name", i)
		}
	}
	return nil
}

// Config returns the server configuration the script describes.
func (f *ScriptFile) Config() Config {
	return Config{
		Models: f.Models, Pullable: f.Pullable,
		Latency: time.Duration(f.Latency), Slots: f.Slots, MaxQueue: f.MaxQueue,
		DefaultNumCtx: f.DefaultNumCtx, Version: f.Version,
	}
}

// Apply adds the script's rules, queue and default to an engine.
func (f *ScriptFile) Apply(e *Engine) {
	for _, r := range f.Rules {
		turns := make([]Turn, len(r.Reply))
		for i, t := range r.Reply {
			turns[i] = t.Turn()
		}
		e.On(r.When.Matcher()).Times(r.Times).Reply(turns...)
	}
	for _, t := range f.Queue {
		e.Enqueue(t.Turn())
	}
	if f.Default != nil {
		e.Default(f.Default.Turn())
	}
}

// Matcher returns the matcher for the conditions.
func (w ScriptWhen) Matcher() Matcher {
	var ms []Matcher
	add := func(cond bool, m Matcher) {
		if cond {
			ms = append(ms, m)
		}
	}
	add(w.LastUserContains != "", LastUserContains(w.LastUserContains))
	if w.LastUserMatches != "" {
		re := w.re
		if re == nil {
			re = regexp.MustCompile(w.LastUserMatches) // only reached when built without ParseScript
		}
		ms = append(ms, func(r *Request) bool { return re.MatchString(r.LastUser()) })
	}
	add(w.UserContains != "", UserContains(w.UserContains))
	add(w.SystemContains != "", SystemContains(w.SystemContains))
	add(w.ToolResultFrom != "", HasToolResult(w.ToolResultFrom))
	add(w.ToolResultContains != "", ToolResultContains(w.ToolResultContains))
	add(w.OffersTool != "", OffersTool(w.OffersTool))
	add(w.Model != "", ModelIs(w.Model))
	for _, b := range []struct {
		set *bool
		m   Matcher
	}{{w.HasToolResult, HasToolResult("")}, {w.HasTools, HasTools()}, {w.HasFormat, HasFormat()}} {
		if b.set == nil {
			continue
		}
		if *b.set {
			ms = append(ms, b.m)
		} else {
			ms = append(ms, Not(b.m))
		}
	}
	return And(ms...)
}

// Turn returns the Turn the script entry describes.
func (t ScriptTurn) Turn() Turn {
	out := Turn{
		Content: t.Content, Thinking: t.Thinking, DoneReason: t.DoneReason,
		PromptEvalCount: t.PromptEvalCount, EvalCount: t.EvalCount,
		Delay: time.Duration(t.Delay), Status: t.Status, Error: t.Error,
		StreamError: t.StreamError, Hang: t.Hang, Drop: t.Drop,
	}
	if len(t.JSON) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, t.JSON); err == nil {
			out.Content = buf.String()
		}
	}
	if out.Status != 0 && out.Error == "" {
		out.Error = defaultFailure(out.Status)
	}
	for _, c := range t.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, Call(c.Name, c.Arguments))
	}
	return out
}
