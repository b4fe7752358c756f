package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// writeFile writes text at rel below dir.
func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNestedConfigIsAFinding: a config.toml of inline tables nested 2,000
// deep (12 KB) is an error of icm check at its line and column, found
// before the TOML library reads it. Failed before: check took 2.8 s and
// 300 MB to parse it and reported nothing (48 KB took 24 s and 4 GB).
func TestNestedConfigIsAFinding(t *testing.T) {
	dir := newWS(t, oneStage)
	writeFile(t, dir, "config.toml", "[model]\nname = \"tiny\"\nx = "+strings.Repeat("{b = ", 2000)+"1"+strings.Repeat("}", 2000)+"\n")
	stdout, stderr, err := runIn(t, dir, nil, "check")
	if err == nil || !strings.Contains(stdout+stderr, "config.toml:3:45") || !strings.Contains(stdout+stderr, "nested more than 8 deep") {
		t.Errorf("icm check: %v\n%s%s", err, stdout, stderr)
	}
}

// TestInvalidConfigStopsRunEverywhere: a config.toml icm cannot use is an
// error of every command that acts (run, approve), naming the file and
// the line, with no model call; check reports it; status and probe say
// they show the defaults. Failed before: `context_length = -5` was an
// error in check and none in run, which ran; a config.toml that was not
// TOML made run silently use the defaults (and the default model).
func TestInvalidConfigStopsRunEverywhere(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}, {Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("# Out\n\nText."))
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	for _, c := range []struct{ name, text, line, says string }{
		{"a negative window", "[model]\nname = \"tiny\"\ncontext_length = -5\n", "config.toml:3", "context_length = -5"},
		{"not TOML", "[model\nname = \"tiny\"\n", "config.toml:1", "table name"},
		{"a NaN temperature", "[model]\nname = \"tiny\"\ntemperature = nan\n", "config.toml:3", "temperature = NaN"},
		{"an answer room past any window", "[model]\nname = \"tiny\"\nmax_output = 9000000000000000000\n", "config.toml:3", "max_output"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := newWS(t, oneStage)
			writeFile(t, dir, "config.toml", c.text)
			before := len(srv.ChatRequests())
			for _, args := range [][]string{{"run"}, {"approve", "01-a"}} {
				stdout, stderr, err := runIn(t, dir, vars, args...)
				if err == nil || !strings.Contains(err.Error(), c.line) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("icm %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
				}
			}
			if n := len(srv.ChatRequests()) - before; n != 0 {
				t.Errorf("%d model calls with an invalid config.toml", n)
			}
			if stdout, stderr, err := runIn(t, dir, vars, "check"); err == nil || !strings.Contains(stdout, c.line) {
				t.Errorf("icm check: %v\n%s%s", err, stdout, stderr)
			}
			for _, args := range [][]string{{"status"}, {"probe", "01-a"}} {
				_, stderr, _ := runIn(t, dir, vars, args...)
				if !strings.Contains(stderr, c.line) || !strings.Contains(stderr, "default settings") {
					t.Errorf("icm %s does not say it shows the defaults: %s", strings.Join(args, " "), stderr)
				}
			}
		})
	}
}

// TestHistoryListsEveryRunPastALongLine: `icm history` lists every run
// when one trace has a line over the cap, and says which line it skipped.
// Failed before: it failed with "token too long" and listed no run.
func TestHistoryListsEveryRunPastALongLine(t *testing.T) {
	dir := newWS(t, oneStage)
	call := `{"kind":"model","time":"2026-12-01T10:00:00Z","stage":"01-a","model":{"Call":1,"Model":"tiny","PromptTokens":7,"OutputTokens":1}}` + "\n"
	writeFile(t, dir, "history/20261201-100000-aaaaaa.jsonl", call)
	writeFile(t, dir, "history/20261201-100100-bbbbbb.jsonl", call+`{"kind":"tool","tool":{"Args":{"a":"`+strings.Repeat("x", 17<<20)+`"}}}`+"\n"+call)
	writeFile(t, dir, "history/20261201-100200-cccccc.jsonl", call)
	stdout, stderr, err := runIn(t, dir, nil, "history")
	if err != nil || strings.Count("\n"+stdout, "\nrun ") != 3 || !strings.Contains(stdout, "note: line 2 (17 MB) is longer than 16 MB and was skipped") || !strings.Contains(stdout, "14 in") {
		t.Errorf("icm history: %v\n%s%s", err, stdout, stderr)
	}
}

// TestHistoryDiffOfRepetitiveFiles: `icm history --diff` between two
// versions of 1.2 MB whose lines repeat (a thousand kinds, each too rare
// for the old diff to set it aside) is produced, whole and correct
// (applied to the old version it gives the new one). Failed before: the
// line diff was quadratic on such lines (238 KB took 6 s, 640 KB about
// 40 s), and this one did not finish within the minute.
func TestHistoryDiffOfRepetitiveFiles(t *testing.T) {
	dir := newWS(t, oneStage)
	var old, cur strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&old, "- point %d\n", i%1000)
		fmt.Fprintf(&cur, "- point %d\n", (i*7)%1000)
	}
	writeFile(t, dir, "history/versions/01-a/20261201-100000.000-20261201-100000-aaaaaa/out.md", old.String())
	writeFile(t, dir, "pipeline/01-a/output/out.md", cur.String())
	var stdout, stderr string
	var err error
	if !within(t, time.Minute, "icm history --diff of two 1.2 MB files", func() { stdout, stderr, err = runIn(t, dir, nil, "history", "--diff", "01-a") }) {
		return
	}
	if err != nil || !strings.HasPrefix(stdout, "--- history/versions/01-a/") {
		t.Fatalf("icm history --diff: %v\n%.300s%s", err, stdout, stderr)
	}
	if got := applyUnified(t, old.String(), stdout); got != cur.String() {
		t.Errorf("the diff applied to the old version does not give the new one (%d bytes, want %d)", len(got), cur.Len())
	}
}

// applyUnified applies a unified diff of one file to text.
func applyUnified(t *testing.T, text, diff string) string {
	t.Helper()
	old := strings.SplitAfter(text, "\n")
	var out []string
	at := 0 // lines of old used
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"), l == "":
		case strings.HasPrefix(l, "@@ -"):
			var start int
			if _, err := fmt.Sscanf(l, "@@ -%d", &start); err != nil {
				t.Fatalf("hunk header %q", l)
			}
			if start > 0 && !strings.Contains(strings.Fields(l)[1], ",0") {
				start--
			}
			out = append(out, old[at:start]...)
			at = start
		case l[0] == ' ':
			out = append(out, old[at])
			at++
		case l[0] == '-':
			at++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, old[at:]...)
	return strings.Join(out, "")
}
