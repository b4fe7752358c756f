package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestHistoryRunTree runs a For each stage through the command line and
// reads the run back as a tree: the stage, each item with its time and
// tokens, and each item's model call under it.
func TestHistoryRunTree(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.On(ollamatest.LastUserContains("## Part A")).Reply(ollamatest.Text("## Part A\n\nAbout A."))
	srv.On(ollamatest.LastUserContains("## Part B")).Reply(ollamatest.Text("## Part B\n\nAbout B."))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- plan.md --
# Plan

## Part A
- a

## Part B
- b
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## For each
part in ../../plan.md
## Process
WRITE the part shown below.
## Outputs
- parts.md -> output/
`)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	list, _, err := runIn(t, dir, vars, "history")
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`run (\d{8}-\d{6}-[0-9a-f]{6})`).FindStringSubmatch(list)
	if id == nil {
		t.Fatalf("no run listed:\n%s", list)
	}
	out, _, err := runIn(t, dir, vars, "history", "--run", id[1])
	if err != nil {
		t.Fatal(err)
	}
	// A duration as package human writes it: "3 ms", "1.2 s".
	const took = `\d+(\.\d)? (ms|s)`
	want := []*regexp.Regexp{
		regexp.MustCompile(`^run ` + id[1] + `  .*  \d+ tokens? in / \d+ out$`),
		regexp.MustCompile(`^└─ 01-write  done  ` + took + `  \d+ tokens? in / \d+ out$`),
		regexp.MustCompile(`^   ├─ \[1/2\] Part A  ` + took + `  [1-9]\d* tokens? in / [1-9]\d* out$`),
		regexp.MustCompile(`^   │  └─ call 1: model tiny  [1-9]\d* tokens? in / [1-9]\d* out  ` + took + `$`),
		regexp.MustCompile(`^   └─ \[2/2\] Part B  ` + took + `  [1-9]\d* tokens? in / [1-9]\d* out$`),
		regexp.MustCompile(`^      └─ call 1: model tiny  [1-9]\d* tokens? in / [1-9]\d* out  ` + took + `$`),
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("tree has %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i+1, lines[i], re)
		}
	}
	// One call's request and reply.
	ex, _, err := runIn(t, dir, vars, "history", "--run", id[1], "--stage", "01-write", "--item", "2", "--call", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"model call 1 of 01-write (item 2: Part B): tiny", "== request 1: system", "== request 2: user", "WRITE the part shown below", "== reply\n## Part B\n\nAbout B."} {
		if !strings.Contains(ex, want) {
			t.Errorf("the exchange lacks %q:\n%s", want, ex)
		}
	}
}
