package runnable

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A repository whose one workspace has a stage of each outcome a person
// meets today: one that runs, one whose input exists nowhere, one
// waiting on that stage's output, one whose output fails its own Verify
// check at the gate.
const repo = `
-- README.md --
A repository.
-- ws/CLAUDE.md --
# A workspace
-- ws/CONTEXT.md --
# Routing
-- ws/pipeline/01-draft/CONTEXT.md --
# Stage: 01-draft

## Process
Write a draft.

## Outputs
- draft.md -> output/
-- ws/pipeline/02-plan/CONTEXT.md --
# Stage: 02-plan

## Inputs
- Layer 4 (working): ../01-draft/output/draft.md
- Layer 3 (reference): references/missing.md

## Process
Plan.

## Outputs
- plan.md -> output/
-- ws/pipeline/03-write/CONTEXT.md --
# Stage: 03-write

## Inputs
- Layer 4 (working): ../02-plan/output/plan.md

## Process
Write.

## Outputs
- text.md -> output/
-- ws/pipeline/04-short/CONTEXT.md --
# Stage: 04-short

## Inputs
- Layer 4 (working): ../01-draft/output/draft.md

## Process
Shorten the draft.

## Outputs
- short.md -> output/

## Verify
- max-words 3
`

func TestMeasureSortsEachStage(t *testing.T) {
	dir := wstest.Write(t, repo)
	var observed []string
	rep, err := Measure(context.Background(), []Repo{{Name: "r", Dir: dir}}, Options{Observe: func(r StageRun) {
		if len(r.Requests) != r.Stage.ModelCalls {
			t.Errorf("%s: %d requests observed, %d counted", r.Stage.Name, len(r.Requests), r.Stage.ModelCalls)
		}
		observed = append(observed, r.Stage.Name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Workspaces) != 1 || rep.Workspaces[0].Name != "r/ws" {
		t.Fatalf("workspaces = %+v", rep.Workspaces)
	}
	got := map[string]Stage{}
	for _, s := range rep.Workspaces[0].Stages {
		got[s.Name] = s
	}
	if s := got["01-draft"]; s.Outcome != Ran || s.ModelCalls != 1 {
		t.Errorf("01-draft: %+v", s)
	}
	if s := got["02-plan"]; s.Outcome != Refused || s.Step != "run" || s.Kind != "contract-invalid" ||
		!reflect.DeepEqual(s.Reasons, []string{"contract-invalid: input-missing"}) || s.ModelCalls != 0 {
		t.Errorf("02-plan: %+v", s)
	}
	if s := got["03-write"]; s.Outcome != Skipped || s.Upstream != "02-plan" {
		t.Errorf("03-write: %+v", s)
	}
	if s := got["04-short"]; s.Outcome != Refused || s.Step != "approve" || s.Kind != "verify-failed" ||
		!reflect.DeepEqual(s.Reasons, []string{"verify-failed: has failing Verify checks"}) {
		t.Errorf("04-short: %+v", s)
	}
	for _, s := range got {
		if strings.Contains(s.Message, os.TempDir()) {
			t.Errorf("%s: the message names the copy: %s", s.Name, s.Message)
		}
	}
	if strings.Join(observed, " ") != "01-draft 02-plan 03-write 04-short" {
		t.Errorf("observed %v", observed)
	}
	// The repository itself is only read.
	if _, err := os.Stat(filepath.Join(dir, "ws", "pipeline", "01-draft", "output")); !os.IsNotExist(err) {
		t.Errorf("the measurement wrote into the repository: %v", err)
	}
	md := rep.Markdown()
	for _, want := range []string{"## r/ws: 1 of 4 stages run", "| 03-write | skipped (02-plan did not produce an input) |",
		"| refused | 2 |", "| contract-invalid: input-missing | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// A prompt over the model's window is refused before any call.
func TestMeasureRefusesOverTheWindow(t *testing.T) {
	dir := wstest.Write(t, repo)
	rep, err := Measure(context.Background(), []Repo{{Name: "r", Dir: dir, Workspaces: []string{"ws"}}}, Options{ContextLength: 64})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Workspaces[0].Stages[0]
	if s.Outcome != Refused || s.Kind != "window-exceeded" || s.ModelCalls != 0 || len(s.Reasons) != 1 ||
		!strings.HasPrefix(s.Reasons[0], "window-exceeded: ") || strings.ContainsAny(s.Reasons[0], "0123456789") {
		t.Errorf("01-draft: %+v", s)
	}
}

// Outputs the author committed travel with the copy, as in a clone.
func TestCopyKeepsCommittedOutputs(t *testing.T) {
	src := wstest.Write(t, "-- a/output/x.md --\nx\n-- .git/config --\n[core]\n")
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyRepo(src, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a", "output", "x.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git", "config")); !os.IsNotExist(err) {
		t.Errorf("the repository's own .git was copied: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dst, ".git")); err != nil || !fi.IsDir() {
		t.Errorf("no .git marks the copy's root: %v", err)
	}
}

func TestWorkspacesFindsNestedOnes(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# A repository of workspaces, with no stages of its own
-- workspaces/a/CLAUDE.md --
# a
-- workspaces/a/stages/01-x/CONTEXT.md --
# x
-- workspaces/a/stages/01-x/output/nested/CLAUDE.md --
# not a workspace of its own
-- deep/b/stages/01-y/CONTEXT.md --
# y
-- node_modules/c/CLAUDE.md --
# c
-- node_modules/c/stages/01-z/CONTEXT.md --
# z
`)
	got, err := Workspaces(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "deep/b workspaces/a" {
		t.Errorf("workspaces = %v", got)
	}
}

func TestShapeLeavesOutNames(t *testing.T) {
	for msg, want := range map[string]string{
		"stage 04-review: stages/04-review/output/a.md, stages/04-review/output/b.md is already there and no run of icm wrote it; running would overwrite it": "… is already there and no run of icm wrote it",
		"stage 01-setup cannot run: every output holds a placeholder or names a folder; add an output":                                                        "every output holds a placeholder or names a folder",
		"stage 02 (item 3): the prompt is about 40807 tokens and the window is 40960 tokens":                                                                  "the prompt is about … tokens and the window is … tokens",
		"stage 04-short has failing Verify checks: max-words: 12 words":                                                                                       "has failing Verify checks",
	} {
		if got := shape(msg); got != want {
			t.Errorf("shape(%q) = %q, want %q", msg, got, want)
		}
	}
}
