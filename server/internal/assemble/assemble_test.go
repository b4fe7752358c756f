package assemble

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

const ws1 = `
-- CLAUDE.md --
# Identity
You are here.
-- CONTEXT.md --
# Routing
Stages in order.
-- _config/audience.md --
# Audience

## Who they are
Developers.

## Tone
Plain.

## Extra
Not loaded when scoped.
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): input.md
- Layer 3 (reference): ../../_config/audience.md#Tone
- Layer 4 (working): ../02-b/output/b.md

## Process
Do the thing.

## Outputs
- a.md -> output/
-- pipeline/01-a/input.md --
The idea.
`

func load(t *testing.T, dir, stage string) (*workspace.Workspace, *workspace.Stage, *contract.Contract) {
	t.Helper()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ws.Stage(stage)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ws.Files.ReadFile(st.Contract)
	if err != nil {
		t.Fatal(err)
	}
	return ws, st, contract.Parse(st.Contract, src)
}

func TestAssembleLayersInOrder(t *testing.T) {
	ws, st, c := load(t, wstest.Write(t, ws1), "01-a")
	ctx, err := Stage(ws, st, c, Options{AllowMissing: true, ProducedBy: map[string]string{"pipeline/02-b/output/b.md": "02-b"}})
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"# Identity", "# Routing", "# Reference material", "## _config/audience.md#Tone", "## Tone\nPlain."}
	last := -1
	for _, s := range order {
		i := strings.Index(ctx.System, s)
		if i < 0 || i < last {
			t.Fatalf("system text lacks %q in order:\n%s", s, ctx.System)
		}
		last = i
	}
	if strings.Contains(ctx.System, "Developers") || strings.Contains(ctx.System, "Not loaded") {
		t.Errorf("section scope loaded other headings:\n%s", ctx.System)
	}
	if !strings.HasPrefix(ctx.User, "Do the thing.") || !strings.Contains(ctx.User, "## pipeline/01-a/input.md\n\nThe idea.") {
		t.Errorf("user text:\n%s", ctx.User)
	}
	if !strings.Contains(ctx.User, "not produced yet: stage 02-b") {
		t.Errorf("missing input not marked:\n%s", ctx.User)
	}
	sum := 0
	for _, p := range ctx.Parts {
		sum += p.Tokens
	}
	if ctx.Total != ctx.SystemTokens+ctx.UserTokens || sum == 0 || sum > ctx.Total {
		t.Errorf("token totals: parts %d, system %d, user %d, total %d", sum, ctx.SystemTokens, ctx.UserTokens, ctx.Total)
	}
}

func TestAssembleDeterministic(t *testing.T) {
	ws, st, c := load(t, wstest.Copy(t, "course-research"), "01-scope")
	a, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Stage(ws, st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.System != b.System || a.User != b.User {
		t.Error("two assemblies of the same files differ")
	}
	if a.Total < 300 || a.Total > 3000 {
		t.Errorf("01-scope is ~%d tokens; the method wants a few hundred to low thousands", a.Total)
	}
}

// An earlier stage's output that is not there yet stops a run (run and
// approve that stage first); a later stage's does not: the stage reads it
// as missing, and check warns.
func TestMissingInputOfAnEarlierStageIsAnError(t *testing.T) {
	dir := wstest.Write(t, strings.Replace(ws1, "../02-b/output/b.md", "../00-z/output/z.md", 1)+
		"-- pipeline/00-z/CONTEXT.md --\n# Stage: 00-z\n\n## Process\nGo.\n\n## Outputs\n- z.md -> output/\n")
	ws, st, c := load(t, dir, "01-a")
	_, err := Stage(ws, st, c, Options{ProducedBy: map[string]string{"pipeline/00-z/output/z.md": "00-z"}})
	var me *MissingError
	if !errors.As(err, &me) || me.ProducedBy != "00-z" || !strings.Contains(err.Error(), "run and approve that stage first") {
		t.Fatalf("err = %v", err)
	}
	dir = wstest.Write(t, ws1+"-- pipeline/02-b/CONTEXT.md --\n# Stage: 02-b\n\n## Process\nGo.\n\n## Outputs\n- b.md -> output/\n")
	ws, st, c = load(t, dir, "01-a")
	ctx, err := Stage(ws, st, c, Options{ProducedBy: map[string]string{"pipeline/02-b/output/b.md": "02-b"}})
	if err != nil {
		t.Fatalf("a later stage's output stopped the assembly: %v", err)
	}
	if !strings.Contains(ctx.User, "not produced yet: stage 02-b writes it") {
		t.Errorf("the later stage's output is not said to be missing:\n%s", ctx.User)
	}
}

func TestItemBlock(t *testing.T) {
	ws, st, c := load(t, wstest.Write(t, ws1), "01-a")
	c.ForEach = &contract.ForEach{Item: "module"}
	it := markdown.Item{Title: "Module 2: Call it", Body: "- a bullet"}
	ctx, err := Stage(ws, st, c, Options{AllowMissing: true, Item: &it, ItemIndex: 2, ItemCount: 3, Siblings: []string{"Module 1: Install", "Module 3: Ship"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# The module to work on now (2 of 3)", "## Module 2: Call it\n\n- a bullet", "- Module 1: Install", "- Module 3: Ship"} {
		if !strings.Contains(ctx.User, want) {
			t.Errorf("user text lacks %q:\n%s", want, ctx.User)
		}
	}
	if ctx.Item != "Module 2: Call it" {
		t.Errorf("item = %q", ctx.Item)
	}
}

func TestSelectScopes(t *testing.T) {
	src := []byte("# Voice\n\n## Hard Constraints\nA\n\n## Sentence Rules\nB\n\n## What the Voice Is NOT\nC\n\n## Pacing\nD\n")
	tests := []struct {
		scope *contract.Scope
		want  string
		err   bool
	}{
		{nil, string(src[:len(src)-1]), false},
		{&contract.Scope{Headings: []string{"Sentence Rules"}}, "## Sentence Rules\nB", false},
		{&contract.Scope{Headings: []string{"Hard Constraints", "What the Voice Is NOT"}, Through: true}, "## Hard Constraints\nA\n\n## Sentence Rules\nB\n\n## What the Voice Is NOT\nC", false},
		{&contract.Scope{Headings: []string{"Pacing", "Hard Constraints"}}, "## Pacing\nD\n\n## Hard Constraints\nA", false},
		{&contract.Scope{Headings: []string{"Missing"}}, "", true},
		{&contract.Scope{FreeText: true, Raw: "relevant part"}, string(src[:len(src)-1]), false},
	}
	for _, tt := range tests {
		got, err := Select(src, tt.scope)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("Select(%+v) = %q, %v; want %q", tt.scope, got, err, tt.want)
		}
	}
}

// TestFolderInputSaysWhatItLeavesOut: a folder input loads its first
// workspace.MaxFolderFiles files and says so, rather than stopping
// silently.
func TestFolderInputSaysWhatItLeavesOut(t *testing.T) {
	var b strings.Builder
	b.WriteString("-- CLAUDE.md --\n# Id\n-- pipeline/01-a/CONTEXT.md --\n# Stage: 01-a\n\n## Inputs\n- Layer 4 (working): notes/\n\n## Process\nRead.\n\n## Outputs\n- a.md -> output/\n")
	for i := 0; i <= workspace.MaxFolderFiles; i++ {
		fmt.Fprintf(&b, "-- pipeline/01-a/notes/n%03d.md --\nNote %d.\n", i, i)
	}
	ws, st, c := load(t, wstest.Write(t, b.String()), "01-a")
	cx, err := Stage(ws, st, c, Options{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	loaded, notes := 0, 0
	for _, p := range cx.Parts {
		switch {
		case strings.HasPrefix(p.Label, "pipeline/01-a/notes/n"):
			loaded++
		case p.Label == "pipeline/01-a/notes/" && strings.Contains(p.Note(), "only its first 100 files are loaded"):
			notes++
		}
	}
	if loaded != workspace.MaxFolderFiles || notes != 1 {
		t.Errorf("%d files loaded and %d notes, want %d and 1", loaded, notes, workspace.MaxFolderFiles)
	}
}

// TestASharedInputOutsideGitNamesTheRepositoryFlag: outside a git
// repository a leading / is read from the workspace alone, so a shared
// input that is not there may well be in the repository above: the run's
// error says to name that root (check gives it as a note, not an error).
func TestASharedInputOutsideGitNamesTheRepositoryFlag(t *testing.T) {
	ws, st, c := load(t, wstest.Write(t, `
-- CLAUDE.md --
# Id
-- stages/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 3 (reference): /_core/conventions.md

## Process
Go.

## Outputs
- a.md -> output/
`), "01-a")
	if ws.Repository != "" {
		t.Skipf("the temporary folder is inside a repository (%s)", ws.Repository)
	}
	_, err := Stage(ws, st, c, Options{})
	var me *MissingError
	if !errors.As(err, &me) || !me.OutsideGit || !strings.Contains(err.Error(), "--repo DIR or ICM_REPO") {
		t.Fatalf("err = %v", err)
	}
}
