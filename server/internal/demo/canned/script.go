package canned

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Script is what the canned model serves and says, in its JSON form: the
// format of the scripted test server (testutil/ollamatest), cut down to
// what the demo uses. Rules are tried in order; the first whose
// conditions all hold answers, else Default does.
type Script struct {
	Models []ModelSpec `json:"models"`
	// Latency is how long every chat call takes inside its slot.
	Latency Duration `json:"latency"`
	// Slots is how many chat calls are answered at once (at least one);
	// the others wait for a slot, as with OLLAMA_NUM_PARALLEL.
	Slots   int     `json:"slots"`
	Rules   []Rule  `json:"rules"`
	Default *Answer `json:"default"`
}

// ModelSpec is a model the canned server has "installed".
type ModelSpec struct {
	Name          string `json:"name"`
	ContextLength int    `json:"context_length"`
	// Family is details.family and the architecture in model_info.
	Family string `json:"family"`
	// Capabilities as /api/show lists them ("completion", "tools").
	Capabilities []string `json:"capabilities"`
}

// Rule answers the calls whose When holds: the first such call with the
// first answer of Reply, the next with the next, the last repeating.
type Rule struct {
	When  When     `json:"when"`
	Reply []Answer `json:"reply"`
}

// When lists a rule's conditions; every one set must hold, and an empty
// When holds for every call. The booleans can demand absence too:
// "has_tools": false holds for a call that offers no tools.
type When struct {
	UserContains       string `json:"user_contains"`
	LastUserContains   string `json:"last_user_contains"`
	ToolResultFrom     string `json:"tool_result_from"`
	ToolResultContains string `json:"tool_result_contains"`
	HasToolResult      *bool  `json:"has_tool_result"`
	HasTools           *bool  `json:"has_tools"`
}

// Answer is what the model says to one call: text, tool calls, or both.
type Answer struct {
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// ToolCall is one function call in an answer.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// ParseScript reads and checks a script; name (usually the path) starts
// its errors.
func ParseScript(name string, data []byte) (*Script, error) {
	var s Script
	if err := DecodeScript(name, data, &s); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: invalid script: %w", name, err)
	}
	return &s, nil
}

// check finds what JSON decoding cannot.
func (s *Script) check() error {
	if len(s.Models) == 0 {
		return errors.New("it names no model (models: [{\"name\": ...}])")
	}
	for i, m := range s.Models {
		if strings.TrimSpace(m.Name) == "" || m.ContextLength <= 0 {
			return fmt.Errorf("models[%d] needs a name and a positive context_length", i)
		}
	}
	if s.Slots < 0 {
		return errors.New("slots must not be negative")
	}
	for i, r := range s.Rules {
		if len(r.Reply) == 0 {
			return fmt.Errorf("rules[%d] has no reply", i)
		}
		for j, a := range r.Reply {
			if err := a.check(); err != nil {
				return fmt.Errorf("rules[%d].reply[%d]: %w", i, j, err)
			}
		}
	}
	if s.Default != nil {
		if err := s.Default.check(); err != nil {
			return fmt.Errorf("default: %w", err)
		}
	}
	return nil
}

// check finds a tool call without a name.
func (a Answer) check() error {
	for i, c := range a.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool_calls[%d] has no name", i)
		}
	}
	return nil
}

// model returns the model a call names; "x" and "x:latest" are one model,
// as in Ollama.
func (s *Script) model(name string) (ModelSpec, bool) {
	want := strings.TrimSuffix(name, ":latest")
	for _, m := range s.Models {
		if strings.TrimSuffix(m.Name, ":latest") == want {
			return m, true
		}
	}
	return ModelSpec{}, false
}

// holds reports whether every condition set holds for the call.
func (w When) holds(req *api.ChatRequest) bool {
	var lastUser string
	var users, results []api.Message
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			users, lastUser = append(users, m), m.Content
		case "tool":
			results = append(results, m)
		}
	}
	contains := func(ms []api.Message, s string) bool {
		return slices.ContainsFunc(ms, func(m api.Message) bool { return strings.Contains(m.Content, s) })
	}
	from := func(name string) bool {
		return slices.ContainsFunc(results, func(m api.Message) bool { return m.ToolName == name })
	}
	is := func(want *bool, got bool) bool { return want == nil || *want == got }
	return (w.UserContains == "" || contains(users, w.UserContains)) &&
		(w.LastUserContains == "" || strings.Contains(lastUser, w.LastUserContains)) &&
		(w.ToolResultFrom == "" || from(w.ToolResultFrom)) &&
		(w.ToolResultContains == "" || contains(results, w.ToolResultContains)) &&
		is(w.HasToolResult, len(results) > 0) &&
		is(w.HasTools, len(req.Tools) > 0)
}
