package config

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/suggest"
)

// Bounds of the numbers icm's settings may hold. Each is far beyond any
// real use; they exist so that no setting can overflow what icm computes
// from it (the answer cap is a few times max_output in bytes, num_ctx is
// max_output plus a prompt count) or ask for what no machine has.
const (
	// MaxWindow bounds a window or a count of tokens: num_ctx,
	// context_length, max_output, token_budget.
	MaxWindow = 1 << 24
	// MaxToolCalls bounds [workflow] max_tool_calls.
	MaxToolCalls = 10000
	// MaxParallel bounds what runs at once: [workflow] parallel, [test]
	// parallel, a model server's slots.
	MaxParallel = 256
	// MaxToolResultChars bounds [workflow] max_tool_result_chars.
	MaxToolResultChars = 16 << 20
	// MaxReadSize bounds [workflow] max_file_size.
	MaxReadSize = 1 << 30
	// MaxTimeout bounds every duration setting.
	MaxTimeout = 24 * time.Hour
	// MaxRepeat bounds [test] repeat.
	MaxRepeat = 1000
	// MaxSeed bounds [test] seed: repeats add to it, and model servers
	// read it as a 32-bit number.
	MaxSeed = math.MaxInt32 - MaxRepeat
	// MaxTemperature is the highest sampling temperature servers take.
	MaxTemperature = 2.0
)

// Invalid is a setting icm cannot use as it is (or, when Warning is set,
// can but probably should not).
type Invalid struct {
	// Key is the setting's dotted path ("model.max_output"); for a
	// table-wide problem the table's ("mcp.servers.search").
	Key     string
	Message string
	Warning bool
	// Header says Key names a table, placed at its header.
	Header bool
	// Suggestion is the allowed value probably meant, for an enumerated
	// setting.
	Suggestion string
}

// Problems checks every setting against what icm accepts: the values of
// enumerated ones, every number within its bound (NaN and infinities
// refused), durations longer than zero and at most MaxTimeout, paths
// inside the workspace, each tool server reachable one way. It is the one
// validation of settings: Parse fails on its errors, so `icm check`, a
// run and the language server refuse the same files, and Lint places
// each on its line.
func (c *Config) Problems() []Invalid {
	var out []Invalid
	bad := func(key, format string, args ...any) {
		out = append(out, Invalid{Key: key, Message: fmt.Sprintf(format, args...)})
	}
	enum := func(key, value string) {
		k, _ := Lookup(key)
		for _, v := range k.Values {
			if v == value {
				return
			}
		}
		msg := fmt.Sprintf("%s = %q: use %s", key, value, quoteList(k.Values))
		s := suggest.Nearest(value, k.Values)
		if s != "" {
			msg = fmt.Sprintf("%s = %q: did you mean %q? (use %s)", key, value, s, quoteList(k.Values))
		}
		out = append(out, Invalid{Key: key, Message: msg, Suggestion: s})
	}
	enum("model.provider", c.Model.Provider)
	enum("workflow.gate", c.Workflow.Gate)
	if t := c.Model.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > MaxTemperature) {
		bad("model.temperature", "model.temperature = %g: use a number from 0 to %g", *t, MaxTemperature)
	}
	for _, n := range []struct {
		key         string
		value       int
		least, most int
		unit        string
	}{
		{"model.num_ctx", c.Model.NumCtx, 0, MaxWindow, " tokens (0 sizes the window per call)"},
		{"model.max_output", c.Model.MaxOutput, 1, MaxWindow, " tokens"},
		{"model.context_length", c.Model.ContextLength, 0, MaxWindow, " tokens (0: the server says)"},
		{"workflow.max_tool_calls", c.Workflow.MaxToolCalls, 1, MaxToolCalls, ""},
		{"workflow.parallel", c.Workflow.Parallel, 1, MaxParallel, ""},
		{"model.slots", c.Model.Slots, 0, MaxParallel, " (0: not said)"},
		{"workflow.max_tool_result_chars", c.Workflow.MaxToolResultChars, 1, MaxToolResultChars, " characters"},
		{"workflow.token_budget", c.Workflow.TokenBudget, 0, MaxWindow, " tokens"},
		{"test.repeat", c.Test.Repeat, 0, MaxRepeat, ""},
		{"test.parallel", c.Test.Parallel, 0, MaxParallel, ""},
		{"test.seed", c.Test.Seed, 0, MaxSeed, ""},
	} {
		if n.value < n.least || n.value > n.most {
			bad(n.key, "%s = %d: use a number from %d to %d%s", n.key, n.value, n.least, n.most, n.unit)
		}
	}
	if s := c.Workflow.MaxFileSize; s < 1<<10 || s > MaxReadSize {
		text, _ := s.MarshalText()
		bad("workflow.max_file_size", "workflow.max_file_size = %s: use a size from 1KB to 1GB (write it like \"8MB\")", text)
	}
	for _, d := range []struct {
		key   string
		value Duration
	}{{"model.timeout", c.Model.Timeout}, {"workflow.tool_timeout", c.Workflow.ToolTimeout}, {"workflow.script_timeout", c.Workflow.ScriptTimeout}} {
		if d.value.Duration <= 0 || d.value.Duration > MaxTimeout {
			bad(d.key, "%s = %q: use a duration longer than zero and at most 24h, like \"2m\"", d.key, d.value.String())
		}
	}
	for i, s := range c.Model.Servers {
		if strings.TrimSpace(s.URL) == "" {
			bad("model.servers.url", "[[model.servers]] number %d has no url", i+1)
		}
		if s.Slots < 0 || s.Slots > MaxParallel {
			bad("model.servers.slots", "[[model.servers]] number %d: slots = %d: use a number from 1 to %d", i+1, s.Slots, MaxParallel)
		}
	}
	if st := c.Workspace.Stages; st != "" {
		clean := filepath.ToSlash(filepath.Clean(st))
		if filepath.IsAbs(st) || strings.HasPrefix(st, "/") || clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
			bad("workspace.stages", "[workspace] stages = %q: name a folder inside the workspace, like \"phases\"", st)
		}
	}
	if t := c.Evidence.EmbedThreshold; math.IsNaN(t) || t < 0 || t > 1 {
		bad("evidence.embed_threshold", "evidence.embed_threshold = %g: use a number above 0 and at most 1 (leave it out for the default)", t)
	}
	switch c.Check.Conventions {
	case "", "icm-template":
	default:
		bad("check.conventions", "[check] conventions = %q: use \"icm-template\" or leave it out", c.Check.Conventions)
	}
	vars := make([]string, 0, len(c.Vars))
	for k := range c.Vars {
		vars = append(vars, k)
	}
	sort.Strings(vars)
	for _, k := range vars {
		switch c.Vars[k].(type) {
		case string, bool, int64, float64:
		default:
			bad("vars."+k, "[vars] %s: write a string, a number or true/false", k)
		}
	}
	names := make([]string, 0, len(c.MCP.Servers))
	for name := range c.MCP.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := c.MCP.Servers[name]
		if (s.Command == "") == (s.URL == "") {
			out = append(out, Invalid{Key: "mcp.servers." + name, Header: true,
				Message: fmt.Sprintf("[mcp.servers.%s] needs exactly one of command (stdio) or url (streamable HTTP)", name)})
		}
	}
	return out
}

// validate is Problems' errors as one error naming the file and the line
// of the first.
func (c *Config) validate(data []byte) error {
	var msgs []string
	line, col := 0, 0
	entries := indexEntries(Entries(data))
	for _, p := range c.Problems() {
		if p.Warning {
			continue
		}
		if e, ok := entries.find(p.Key); ok && line == 0 {
			at := e.Value.Start
			if p.Header {
				at = e.Key.Start
			}
			line, col = e.Line, columnOf(data, at)
		}
		msgs = append(msgs, p.Message)
	}
	if len(msgs) == 0 {
		return nil
	}
	return &FileError{Path: c.Path, Line: line, Column: col, Msg: strings.Join(msgs, "; ")}
}
