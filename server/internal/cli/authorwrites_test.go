package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// asPerson runs a command line in dir as a person at a terminal who
// answers what icm asks with stdin.
func asPerson(t *testing.T, dir string, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return runAnswering(t, dir, vars, stdin, true, args...)
}

const committedMenus = `
-- CLAUDE.md --
# Menus
-- config.toml --
[model]
name = "m"
-- stages/01-menu/CONTEXT.md --
# Stage: 01-menu

## Process
Write the week's menu.

## Outputs
- menu.md -> output/
-- stages/01-menu/output/menu.md --
# The author's menu
-- stages/02-shop/CONTEXT.md --
# Stage: 02-shop

## Inputs
- ../01-menu/output/menu.md

## Process
Write the shopping list.

## Outputs
- list.md -> output/
`

// Outputs committed with the workspace: icm status says so; a run with
// nobody to ask refuses with the two answers as commands; at a terminal
// it asks once, and "keep" adopts them (recorded as the person's, as
// adopted) and goes on to the next stage; --stage behaves the same.
func TestCommittedOutputsAreAskedAboutOnce(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# List\n\n- eggs\n"))
	dir := wstest.Write(t, committedMenus)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, _, _ := runAsUser(t, dir, vars, "status")
	if !strings.Contains(out, "committed, not made by icm") {
		t.Errorf("status does not say the outputs were committed:\n%s", out)
	}
	out, errOut, code := runAsUser(t, dir, vars, "run", "--stage", "01-menu")
	if code == 0 || !strings.Contains(errOut, "committed with the workspace, not made by icm") ||
		!strings.Contains(errOut, "icm run --stage 01-menu --adopt") || !strings.Contains(errOut, "icm run --stage 01-menu --regenerate") {
		t.Fatalf("run with nobody to ask: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = asPerson(t, dir, vars, "k\n", "run")
	if code != 0 || !strings.Contains(errOut, "Keep them as approved [k], regenerate them [r]") {
		t.Fatalf("run at a terminal: %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Kept as approved (adopted") || !strings.Contains(out, "01-menu") {
		t.Errorf("the run does not say what it kept:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "stages/02-shop/output/list.md")); string(data) != "# List\n\n- eggs\n" {
		t.Errorf("the next stage did not run on the adopted output: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "stages/01-menu/output/menu.md")); string(data) != "# The author's menu\n" {
		t.Errorf("the adopted output changed: %q", data)
	}
	out, _, _ = runAsUser(t, dir, vars, "status")
	if !strings.Contains(out, "adopted") {
		t.Errorf("status does not say 01-menu was adopted:\n%s", out)
	}
	// Asked once: no question any more.
	if _, errOut, _ := asPerson(t, dir, vars, "", "run"); strings.Contains(errOut, "[k]") {
		t.Errorf("asked again:\n%s", errOut)
	}
}

const mapWithPartial = `
-- CLAUDE.md --
# Services
-- config.toml --
[model]
name = "m"
-- _config/endpoint-map.md --
# Endpoint map

(to be filled in)
-- stages/01-map/CONTEXT.md --
# Stage: 01-map

## Process
Populate the endpoint map; write the notes and the risks.

## Outputs
| Artifact | Location |
|---|---|
| Endpoint map | ` + "`_config/endpoint-map.md`" + ` |
| Notes | ` + "`output/notes.md`" + ` |
| Risks | ` + "`output/risks.md`" + ` |
`

// The gate line says what the run wrote against what the contract
// declares: the output still missing, and the change it proposes outside
// output/ as a diff; approving applies it and says so.
func TestTheGateShowsMissingOutputsAndProposedChanges(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "_config/endpoint-map.md", "content": "# Endpoint map\n\n- GET /health\n"}),
		ollamatest.Call("write_output", map[string]any{"path": "output/notes.md", "content": "Notes.\n"})))
	srv.Default(ollamatest.Text("Wrote the map and the notes."))
	dir := wstest.Write(t, mapWithPartial)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"FAIL 2 of 3 outputs written; still missing: output/risks.md; run the stage again for the rest\n      icm run --stage 01-map\n",
		"WARN It proposes 1 change outside output/, applied only when you approve\n      _config/endpoint-map.md\n",
		"    -(to be filled in)\n    +- GET /health\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the gate lacks %q:\n%s", want, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "_config/endpoint-map.md")); !strings.Contains(string(data), "(to be filled in)") {
		t.Fatalf("the file outside output/ changed before approval: %q", data)
	}
	out, errOut, code = runAsUser(t, dir, vars, "--trust", "approve", "01-map")
	if code != 0 || !strings.Contains(out, "applied the change it proposed to _config/endpoint-map.md") {
		t.Fatalf("approve: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "_config/endpoint-map.md")); string(data) != "# Endpoint map\n\n- GET /health\n" {
		t.Errorf("approval did not apply the change: %q", data)
	}
}

const indexing = `
-- CLAUDE.md --
# Search
-- config.toml --
[model]
name = "m"
-- stages/01-index/CONTEXT.md --
# Stage: 01-index

## Process
1. Build the index from the notes with the indexer.

## Commands

` + "```sh\nindexer build notes/ --out output/search.db\n```" + `

## Outputs
- output/search.db
`

// A manual step: icm run says so, tells what to do in the contract's
// words, calls no model, exits 0; icm approve then accepts it.
func TestAManualStepAtTheTerminal(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	dir := wstest.Write(t, indexing)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"Manual step: 01-index is yours to do", "indexer build notes/ --out output/search.db", "icm approve 01-index"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run lacks %q:\n%s", want, out)
		}
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("a manual step called the model %d times", n)
	}
	if out, errOut, code := runAsUser(t, dir, vars, "approve", "01-index"); code != 0 {
		t.Fatalf("approve: %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := runAsUser(t, dir, vars, "status"); !strings.Contains(out, "every stage is approved") {
		t.Errorf("status after approving the manual step:\n%s", out)
	}
}
