package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// mustCheck opens dir and fails the test on any error finding; it returns
// the warnings and notes for a look.
func mustCheck(t *testing.T, dir string) (*workspace.Workspace, []contract.Finding) {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.ConfigErr != nil {
		t.Fatalf("config.toml: %v", ws.ConfigErr)
	}
	rep := check.Run(ws, check.Options{})
	for _, f := range rep.Findings {
		if f.Severity == contract.Error {
			t.Errorf("check: %s: %s", ws.Rel(f.File), f.Message)
		}
	}
	return ws, rep.Findings
}

func read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestInitThenNewStage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "essay-writer")
	res, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CLAUDE.md", "CONTEXT.md", "config.toml", "_config/style.md", "pipeline/01-draft/CONTEXT.md", "pipeline/01-draft/input.md", "pipeline/proposed/README.md"}
	if !slices.Equal(res.Created, want) {
		t.Errorf("created %v, want %v", res.Created, want)
	}
	if !strings.Contains(read(t, filepath.Join(dir, "CLAUDE.md")), "Essay writer") {
		t.Error("the title does not come from the folder name")
	}
	ws, _ := mustCheck(t, dir)
	if len(ws.Stages) != 1 || ws.Config.Model.Name != DefaultModel {
		t.Fatalf("stages %v, model %q", ws.Stages, ws.Config.Model.Name)
	}

	for i, name := range []string{"review", "05-polish"} {
		res, err := NewStage(ws, name)
		if err != nil {
			t.Fatal(err)
		}
		ws, _ = mustCheck(t, dir)
		wantStage := []string{"pipeline/02-review", "pipeline/05-polish"}[i]
		if res.Stage != wantStage || len(ws.Stages) != i+2 {
			t.Fatalf("stage %s, stages %d", res.Stage, len(ws.Stages))
		}
		c := contract.Parse(filepath.Join(dir, res.Stage, "CONTEXT.md"), []byte(read(t, filepath.Join(dir, res.Stage, "CONTEXT.md"))))
		// Each new stage reads the previous stage's output.
		prevOut := []string{"../01-draft/output/draft.md", "../02-review/output/review.md"}[i]
		if len(c.Inputs) == 0 || c.Inputs[0].Path != prevOut || c.Inputs[0].Layer != 4 {
			t.Errorf("%s inputs %+v, want %s first", res.Stage, c.Inputs, prevOut)
		}
	}
	routing := read(t, filepath.Join(dir, "CONTEXT.md"))
	i1, i2, i3 := strings.Index(routing, "1. `01-draft`"), strings.Index(routing, "2. `02-review`"), strings.Index(routing, "3. `05-polish`")
	if i1 < 0 || i2 < i1 || i3 < i2 {
		t.Errorf("routing file:\n%s", routing)
	}
	if _, err := NewStage(ws, "review"); err != nil {
		t.Errorf("a second review stage (06-review) should be allowed: %v", err)
	}
	for _, bad := range []string{"Bad Name", "../x", "05-polish"} {
		if _, err := NewStage(ws, bad); err == nil {
			t.Errorf("NewStage(%q) succeeded", bad)
		}
	}
	if _, err := Init(dir, InitOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("init over a workspace: %v", err)
	}
}

func TestNewStageInAWorkspaceWithoutStyleGuide(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- CONTEXT.md --
# Routing

Nothing listed yet.
`)
	ws, _ := mustCheck(t, dir)
	res, err := NewStage(ws, "scope")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stage != "pipeline/01-scope" || !slices.Contains(res.Created, "pipeline/01-scope/input.md") || !slices.Contains(res.Created, "pipeline/01-scope/references/notes.md") {
		t.Errorf("result %+v", res)
	}
	mustCheck(t, dir)
	if r := read(t, filepath.Join(dir, "CONTEXT.md")); !strings.HasSuffix(r, "## Stages\n\n1. `01-scope`: One sentence on what this stage does.\n") {
		t.Errorf("routing file:\n%s", r)
	}
}

func TestCopyFactory(t *testing.T) {
	src := wstest.Copy(t, "course-research")
	// Give the source the leftovers of runs that must not travel.
	for rel, text := range map[string]string{
		"pipeline/01-scope/output/objectives.md": "1. Old objective",
		"pipeline/01-scope/.icm/run.json":        "{}",
		"history/20260101-000000-abcdef.jsonl":   "{}",
	} {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sws, err := workspace.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "course-go")
	res, err := CopyFactory(sws, dir)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := mustCheck(t, dir)
	if len(ws.Stages) != len(sws.Stages) {
		t.Errorf("%d stages, want %d", len(ws.Stages), len(sws.Stages))
	}
	for _, rel := range res.Created {
		if strings.Contains(rel, "/output/") || strings.Contains(rel, "/.icm/") || strings.HasPrefix(rel, "history/") {
			t.Errorf("copied %s", rel)
		}
	}
	for _, rel := range []string{"CLAUDE.md", "CONTEXT.md", "config.toml", "_config/audience.md", "pipeline/02-research/references/tool-use.md", "pipeline/04-draft/CONTEXT.md"} {
		if read(t, filepath.Join(dir, rel)) != read(t, filepath.Join(src, rel)) {
			t.Errorf("%s is not a faithful copy", rel)
		}
	}
	// The working input is a note, not the source's course idea.
	if in := read(t, filepath.Join(dir, "pipeline/01-scope/input.md")); !strings.Contains(in, "icm init --from") || in == read(t, filepath.Join(src, "pipeline/01-scope/input.md")) {
		t.Errorf("input.md:\n%s", in)
	}
	if _, err := CopyFactory(sws, filepath.Join(src, "inner")); err == nil {
		t.Error("copying a workspace into itself succeeded")
	}
}

func TestInsertRoute(t *testing.T) {
	stages := []string{"01-a", "02-b"}
	cases := []struct{ name, in, want string }{
		{"numbered with continuation", "# R\n\n1. `01-a`: first\n2. `02-b`: second\n   more about b\n\nShared.\n", "# R\n\n1. `01-a`: first\n2. `02-b`: second\n   more about b\n3. `03-c`: purpose\n\nShared.\n"},
		{"bullets", "- 01-a does x\n- 02-b does y\n", "- 01-a does x\n- 02-b does y\n- `03-c`: purpose\n"},
		{"no list", "# R\n", "# R\n\n## Stages\n\n1. `03-c`: purpose\n"},
		{"empty file", "", "## Stages\n\n1. `03-c`: purpose\n"},
	}
	for _, tc := range cases {
		if got := insertRoute(tc.in, stages, "03-c", "purpose"); got != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}
