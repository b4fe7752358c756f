// Package config reads a workspace's config.toml: the model, the workflow
// settings and the MCP servers its stages may use. Every key is optional;
// Defaults fills what the file leaves out.
package config

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/fault"
)

// FileName is the config file's name inside a workspace.
const FileName = "config.toml"

// Config is a workspace's settings.
type Config struct {
	Model     Model     `toml:"model"`
	Workflow  Workflow  `toml:"workflow"`
	Workspace Workspace `toml:"workspace"`
	MCP       MCP       `toml:"mcp"`
	Test      Test      `toml:"test"`
	// Vars are the workspace's setup-time variables: the values of the
	// `{{NAME}}` placeholders of the ICM template (a setup step writes the
	// answers of setup/questionnaire.md here). A boolean or "no" decides
	// whether an optional `{{?NAME}}` block is kept.
	Vars map[string]any `toml:"vars"`
	// Check changes what icm check reports.
	Check Check `toml:"check"`
	// Reads is what the workspace asks of its stages' read tool.
	Reads Reads `toml:"reads"`
	// Evidence changes how an output's evidence is worked out.
	Evidence Evidence `toml:"evidence"`
	// Path is the file the settings came from ("" when defaults only).
	Path string `toml:"-"`
	// Unknown lists keys the file has that icm does not read.
	Unknown []string `toml:"-"`
	// Misspelt are the unknown keys that are a slip of a key icm reads.
	Misspelt []Misspelling `toml:"-"`
}

// Model selects the model server and the model.
type Model struct {
	// Provider is "ollama" (default) or "openai" (an OpenAI-compatible server).
	Provider string `toml:"provider"`
	// Name is the model, e.g. "qwen3.5:9b".
	Name string `toml:"name"`
	// BaseURL is the server; for Ollama, OLLAMA_HOST overrides an empty one.
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable holding an API key (never the key).
	APIKeyEnv   string   `toml:"api_key_env"`
	Temperature *float64 `toml:"temperature"`
	Think       *bool    `toml:"think"`
	// NumCtx fixes the context window; zero sizes it per call.
	NumCtx int `toml:"num_ctx"`
	// MaxOutput is the room kept for each answer, in tokens.
	MaxOutput int `toml:"max_output"`
	// ContextLength is the model's window when the server cannot say (OpenAI-compatible servers).
	ContextLength int `toml:"context_length"`
	// Servers spreads calls over several servers of one model.
	Servers []ModelServer `toml:"servers"`
	// Timeout bounds one model call, retries included.
	Timeout Duration `toml:"timeout"`
	// Slots is how many calls the server takes at once (its
	// OLLAMA_NUM_PARALLEL), as the person states it; 0 when not said.
	Slots int `toml:"slots"`
	// MultiuserCache says whether the server shares a cached prompt
	// start between its slots (OLLAMA_MULTIUSER_CACHE); nil when not said.
	MultiuserCache *bool `toml:"multiuser_cache"`
}

// ModelServer is one of several servers for the same model.
type ModelServer struct {
	URL string `toml:"url"`
	// Slots is how many calls the server takes at once.
	Slots     int    `toml:"slots"`
	APIKeyEnv string `toml:"api_key_env"`
	// MultiuserCache says whether the server shares a cached prompt
	// start between its slots (OLLAMA_MULTIUSER_CACHE); nil when not said.
	MultiuserCache *bool `toml:"multiuser_cache"`
}

// Workflow holds the run engine's settings.
type Workflow struct {
	// Gate is "explicit" (approve with icm approve) or "rerun" (running again approves).
	Gate string `toml:"gate"`
	// MaxToolCalls bounds the tool calls of one stage (or one For each item).
	MaxToolCalls int `toml:"max_tool_calls"`
	// Parallel is how many For each items run at once.
	Parallel int `toml:"parallel"`
	// WarmFirst sends a For each stage's first item alone until the
	// server has read its prompt, then the others (nil: on).
	WarmFirst *bool `toml:"warm_first"`
	// MaxToolResultChars cuts longer tool results head+tail.
	MaxToolResultChars int `toml:"max_tool_result_chars"`
	// ToolTimeout bounds one tool call.
	ToolTimeout Duration `toml:"tool_timeout"`
	// ScriptTimeout bounds a ## Script stage when its contract gives none.
	ScriptTimeout Duration `toml:"script_timeout"`
	// TokenBudget is the per-stage assembled-context budget that check warns about.
	TokenBudget int `toml:"token_budget"`
	// MaxFileSize caps one read of a workspace file (an input, a
	// reference, an output being checked); a larger file is a finding.
	MaxFileSize Size `toml:"max_file_size"`
}

// Warm says whether a For each stage's first item goes alone until the
// server has read its prompt, so the items after it can reuse the start
// they share with it.
func (w Workflow) Warm() bool { return w.WarmFirst == nil || *w.WarmFirst }

// Test holds the defaults of `icm test` (its flags win over them).
type Test struct {
	// Models are the models of the case × model matrix; empty means each
	// stage's configured model.
	Models []string `toml:"models"`
	// Repeat runs each case this many times per model (0: once).
	Repeat int `toml:"repeat"`
	// Parallel is how many cases run at once (0: the slots of
	// [[model.servers]], else 1).
	Parallel int `toml:"parallel"`
	// Seed is the first repeat's seed (0: 1).
	Seed int `toml:"seed"`
	// Judge is the model that scores rubric lines ("": [model] name).
	Judge string `toml:"judge"`
}

// Check holds icm check's settings.
type Check struct {
	// Conventions names an opt-in profile of house rules checked as
	// warnings: "icm-template" (the ICM template's own rules).
	Conventions string `toml:"conventions"`
}

// Reads is what a workspace asks of its stages' read tool. A workspace
// cannot widen its own reads: the ask is a part of its trust, in force
// only once its person trusts it.
type Reads struct {
	// Workspace asks that the models may read any file of the
	// workspace, not only those the contracts name.
	Workspace bool `toml:"workspace"`
}

// Evidence is how an output's evidence is worked out.
type Evidence struct {
	// EmbedModel names an embedding model of the model server whose
	// vectors add a semantic score to the lexical one; empty: lexical only.
	EmbedModel string `toml:"embed_model"`
	// EmbedThreshold is the cosine similarity that supports a unit; zero:
	// evidence's default.
	EmbedThreshold float64 `toml:"embed_threshold"`
}

// VarValues returns [vars] as text: strings as written, true and false as
// "true" and "false", numbers in their shortest form.
func (c Config) VarValues() map[string]string {
	if len(c.Vars) == 0 {
		return nil
	}
	out := make(map[string]string, len(c.Vars))
	for k, v := range c.Vars {
		switch v := v.(type) {
		case string:
			out[k] = v
		case bool, int64, float64:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// Workspace describes the workspace's layout where it differs from what
// icm finds by itself.
type Workspace struct {
	// Stages is the folder holding the numbered stage folders, relative
	// to the workspace ("phases"); empty means pipeline/, stages/, or the
	// one top-level folder that holds numbered stage folders.
	Stages string `toml:"stages"`
}

// MCP lists the tool servers stages may name.
type MCP struct {
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer is how to reach one MCP server: a command (stdio) or a URL
// (streamable HTTP).
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// Source says where the entry was read (config.toml, .vscode/mcp.json, ...).
	Source string `toml:"-"`
}

// Duration is a time.Duration written as "30s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses "30s", "2m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("unable to read duration %q (write it like \"30s\" or \"2m\"): %w", b, err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as "30s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Defaults returns the settings used when config.toml says nothing.
func Defaults() Config {
	return Config{
		Model: Model{
			Provider:  "ollama",
			Name:      "qwen3.5:9b",
			MaxOutput: 4096,
			Timeout:   Duration{10 * time.Minute},
		},
		Workflow: Workflow{
			Gate:               "explicit",
			MaxToolCalls:       24,
			Parallel:           1,
			MaxToolResultChars: 12000,
			ToolTimeout:        Duration{2 * time.Minute},
			ScriptTimeout:      Duration{60 * time.Second},
			TokenBudget:        8000,
			MaxFileSize:        Size(8 << 20),
		},
	}
}

// Parse reads config text (named path in errors) over the defaults. Text
// past the bounds (Precheck), text that is not TOML, a value of the wrong
// type and a setting icm cannot use (Problems) are each an error naming
// the file and the line; the settings are then the defaults, which no
// command may act on (workspace.Workspace.ConfigErr).
func Parse(path string, data []byte) (Config, error) {
	if err := Precheck(path, data); err != nil {
		return Defaults(), err
	}
	cfg := Defaults()
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		p := syntaxProblem(data, indexEntries(Entries(data)), err)
		return Defaults(), &FileError{Path: path, Line: p.Line, Column: p.Column, Msg: p.Message, Err: err}
	}
	cfg.Path = path
	for _, k := range md.Undecoded() {
		cfg.Unknown = append(cfg.Unknown, k.String())
	}
	sort.Strings(cfg.Unknown)
	cfg.Misspelt = misspellings(data, md, cfg.Unknown)
	for name, s := range cfg.MCP.Servers {
		s.Source = path
		cfg.MCP.Servers[name] = s
	}
	if err := cfg.validate(data); err != nil {
		return Defaults(), err
	}
	return cfg, nil
}

// FileError is config text icm cannot use, with the line it is on (0
// when it is about no one line).
type FileError struct {
	Path string
	Line int
	// Column is the 1-based column on Line (0 when not known).
	Column int
	Msg    string
	Err    error
}

func (e *FileError) Error() string {
	if e.Line > 0 && e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Unwrap returns the parser's error, if any.
func (e *FileError) Unwrap() error { return e.Err }

// Fault is config text icm cannot use, at its line.
func (e *FileError) Fault() *fault.Error {
	return fault.ConfigInvalid(e.Error(), "fix the setting there (icm check lists every problem of the workspace)", e.Path).At(e.Path, e.Line)
}

// Where says which file and line an error of Parse is about ("", 0 for
// another error).
func Where(err error) (string, int) {
	var f *FileError
	if errors.As(err, &f) {
		return f.Path, f.Line
	}
	var b *BoundsError
	if errors.As(err, &b) {
		return b.Path, b.Line
	}
	return "", 0
}
