package cli

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const forEachWorkspace = `
-- CLAUDE.md --
# Drafts
-- config.toml --
[model]
name = "m"
-- outline.md --
# Outline

## One

## Two
-- pipeline/01-draft/CONTEXT.md --
# Stage: 01-draft

## For each
module in ../../outline.md

## Process
Draft the module.

## Outputs
- draft.md -> output/
`

// TestHistoryCallsOfAForEachStage: the run tree numbers the model calls
// (the N that --call takes), --run latest is the newest run, and --call
// without --item on a For each stage says that its calls are numbered per
// item (it said "has no model call 1", though the tree showed one).
func TestHistoryCallsOfAForEachStage(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("## A module\n\nText."))
	dir := wstest.Write(t, forEachWorkspace)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %s%s", out, errOut)
	}
	out, errOut, code := runAsUser(t, dir, vars, "history", "--run", "latest")
	if code != 0 {
		t.Fatalf("history --run latest: %s", errOut)
	}
	if strings.Count(out, "call 1: model m") != 2 {
		t.Errorf("the tree does not number each item's calls:\n%s", out)
	}
	_, errOut, code = runAsUser(t, dir, vars, "history", "--run", "latest", "--stage", "01-draft", "--call", "1")
	if code == 0 || !strings.Contains(errOut, "hint: name the item (1 to 2) as well as the call") {
		t.Errorf("--call without --item on a For each stage (%d):\n%s", code, errOut)
	}
	out, errOut, code = runAsUser(t, dir, vars, "history", "--run", "latest", "--stage", "01-draft", "--item", "2", "--call", "1")
	if code != 0 || !strings.Contains(out, "model call 1 of 01-draft (item 2: Two)") {
		t.Errorf("--item 2 --call 1 (%d):\n%s%s", code, out, errOut)
	}
}
