package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// controls lists the control characters in s that a terminal acts on:
// everything below space but newlines and tabs (and the CR of a CRLF),
// DEL, and the C1 controls, as characters or lone bytes.
func controls(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := false
		switch {
		case r == '\n', r == '\t':
		case r == '\r':
			bad = !strings.HasPrefix(s[i:], "\r\n")
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			bad = true
		case r == utf8.RuneError && size == 1 && s[i] <= 0x9f:
			bad = true
		}
		if bad {
			out = append(out, s[max(0, i-12):min(len(s), i+12)])
		}
		i += size
	}
	return out
}

// hostileStage is a folder name with a screen clear and a bell in it.
const hostileStage = "01-a\x1b[2J\x07"

// TestTerminalOutputIsEscaped: text from files (a folder name, an input,
// a trace), from a model (its reply) and from a server (an error) reaches
// the terminal with its control characters escaped, in check, status,
// probe, run's progress and errors, history, history --run and --call;
// --json prints the same text unchanged. Failed before: the raw ESC, BEL
// and OSC 52 (clipboard) and OSC 8 (link) sequences were printed as they
// were.
func TestTerminalOutputIsEscaped(t *testing.T) {
	reply := "# Out\n\x1b]52;c;cHduZWQ=\x07Read \x1b]8;;http://evil.example\x07here\x1b]8;;\x07 \u009b31m."
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.On(ollamatest.LastUserContains("Write it")).Reply(ollamatest.Text(reply))
	srv.Default(ollamatest.Fail(500, "overloaded \x1b]0;pwned title\x07"))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- pipeline/`+hostileStage+`/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): input.md

## Process
Write it.

## Outputs
- out.md -> output/
-- pipeline/`+hostileStage+`/input.md --
An input with a link: `+"\x1b]8;;http://evil.example\x07here\x1b]8;;\x07"+` and a title: `+"\x1b]0;x\x07"+`.
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Process
Go on.

## Outputs
- next.md -> output/
`)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	runs := [][]string{
		{"check"}, {"status"}, {"probe", hostileStage},
		{"run"},
		{"approve", hostileStage},
		{"run"}, // the server fails the second stage with a hostile message
		{"history"}, {"history", "--run", "latest"},
	}
	for _, args := range runs {
		stdout, stderr, _ := runIn(t, dir, vars, args...)
		if c := controls(stdout + stderr); len(c) > 0 {
			t.Errorf("icm %s printed control characters: %q", strings.Join(args, " "), c)
		}
	}
	stdout, stderr, err := runIn(t, dir, vars, "history", "--run", firstRun(t, dir, vars), "--stage", hostileStage, "--call", "1")
	if err != nil || !strings.Contains(stdout, `\x1b]52;c;cHduZWQ=\x07Read`) || len(controls(stdout+stderr)) > 0 {
		t.Errorf("--call 1 (%v): %q", err, stdout+stderr)
	}
	// --json is unchanged: the reply as the model wrote it.
	stdout, _, err = runIn(t, dir, vars, "history", "--run", firstRun(t, dir, vars), "--stage", hostileStage, "--call", "1", "--json")
	var ex struct {
		Call struct{ Reply struct{ Content string } } `json:"call"`
	}
	if err != nil || json.Unmarshal([]byte(stdout), &ex) != nil || ex.Call.Reply.Content != reply || !strings.Contains(stdout, "\u009b31m") {
		t.Errorf("--call 1 --json (%v) does not hold the reply as written: %q", err, stdout)
	}
}

// firstRun is the id of the workspace's oldest run.
func firstRun(t *testing.T, dir string, vars map[string]string) string {
	t.Helper()
	stdout, _, err := runIn(t, dir, vars, "history", "--json")
	var runs []struct{ ID string }
	if err != nil || json.Unmarshal([]byte(stdout), &runs) != nil || len(runs) == 0 {
		t.Fatalf("history --json: %v %q", err, stdout)
	}
	return runs[0].ID
}
