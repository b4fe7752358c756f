package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

const handInWS = `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- pipeline/01-notes/CONTEXT.md --
# Stage: 01-notes
## Inputs
- Layer 4 (working): idea.md
## Process
Write notes and a summary.
## Outputs
- notes.md -> output/
- summary.md -> output/
## Verify
- non-empty
## Gate
auto
-- pipeline/01-notes/idea.md --
An idea.
-- pipeline/02-build/CONTEXT.md --
# Stage: 02-build
## Script
` + "```" + `
echo built > output/built.txt
` + "```" + `
## Outputs
- built.txt -> output/
`

// contextID is a stage's context id as a probe shows it.
func contextID(t *testing.T, ws *workspace.Workspace, stage string) string {
	t.Helper()
	rep := check.Run(ws, check.Options{})
	sr := rep.Stage(stage)
	cx, err := assemble.Stage(ws, sr.Stage, sr.Contract, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy})
	if err != nil {
		t.Fatal(err)
	}
	return cx.ID()
}

func handIn(ws *workspace.Workspace, stage, id string, files ...writeout.File) (*report.Summary, error) {
	e, err := workflow.New(ws, workflow.Options{Stage: stage, Submission: &workflow.Submission{Agent: "tester", ContextID: id, Files: files}})
	if err != nil {
		return nil, err
	}
	return e.Run(context.Background())
}

// nothingRecorded fails when a refused hand-in left a record or a trace.
func nothingRecorded(t *testing.T, dir, stage string) {
	t.Helper()
	for _, p := range []string{filepath.Join(dir, "pipeline", stage, ".icm", state.RunFile), filepath.Join(dir, "history")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused hand-in left %s", p)
		}
	}
}

// TestHandInIsCheckedBeforeAnythingIsWritten: every declared output
// needs its file, a file that fits none is refused, and so is a context
// that is not the stage's now; a refusal leaves no record and no trace.
func TestHandInIsCheckedBeforeAnythingIsWritten(t *testing.T) {
	dir := wstest.Write(t, handInWS)
	ws := openWS(t, dir)
	id := contextID(t, ws, "01-notes")
	notes := writeout.File{Path: "output/notes.md", Content: "Notes."}
	summary := writeout.File{Path: "output/summary.md", Content: "Summary."}
	for _, tc := range []struct {
		name  string
		id    string
		files []writeout.File
		want  string
	}{
		{"one output missing", id, []writeout.File{notes}, "no file for output/summary.md"},
		{"a file fitting none", id, []writeout.File{notes, summary, {Path: "output/extra.md", Content: "x"}}, "fits none of this stage's outputs"},
		{"outside output/", id, []writeout.File{notes, {Path: "../../CLAUDE.md", Content: "x"}}, "climbs out"},
		{"no context id", "", []writeout.File{notes, summary}, "no context id"},
		{"another context", "ctx-0000", []writeout.File{notes, summary}, "is not the stage's context now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := handIn(ws, "01-notes", tc.id, tc.files...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			nothingRecorded(t, dir, "01-notes")
		})
	}
	t.Run("an input changed since the context was read", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, "pipeline", "01-notes", "idea.md"), []byte("Another idea.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := handIn(openWS(t, dir), "01-notes", id, notes, summary)
		if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
			t.Fatalf("err = %v", err)
		}
		nothingRecorded(t, dir, "01-notes")
	})
	t.Run("a script stage", func(t *testing.T) {
		_, err := handIn(ws, "02-build", contextID(t, ws, "02-build"), writeout.File{Path: "output/built.txt", Content: "x"})
		if err == nil || !strings.Contains(err.Error(), "runs a script") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestHandInStopsAtTheGate: an accepted hand-in is a run like a model's,
// recorded as the agent's, and it waits for a person even where the
// contract's Gate is auto; a person's edit is never overwritten.
func TestHandInStopsAtTheGate(t *testing.T) {
	dir := wstest.Write(t, handInWS)
	ws := openWS(t, dir)
	id := contextID(t, ws, "01-notes")
	sum, err := handIn(ws, "01-notes", id, writeout.File{Path: "output/notes.md", Content: "Notes."}, writeout.File{Path: "pipeline/01-notes/output/summary.md", Content: "Summary."})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Ran) != 1 || sum.Ran[0].AutoApproved || len(sum.Approved) > 0 || sum.Next.Action != state.ActionApprove {
		t.Fatalf("the hand-in did not stop at the gate: %+v, next %+v", sum.Ran, sum.Next)
	}
	s := stageState(t, ws, "01-notes")
	if s.Status != state.Awaiting || s.WrittenBy != "agent:tester" || s.Record.ContextID != id || s.Record.Configured != "tiny" || s.Record.ConfiguredModel() != "tiny" {
		t.Fatalf("state %s, written by %q, record %+v", s.Status, s.WrittenBy, s.Record)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "pipeline", "01-notes", "output", "notes.md")); string(got) != "Notes.\n" {
		t.Errorf("notes.md = %q", got)
	}
	if f := state.FaceOf(s, false, ""); !strings.Contains(f.Detail, "written by agent:tester over MCP") {
		t.Errorf("the face does not say who wrote it: %+v", f)
	}
	// The run's tree names the agent on the stage's node, for the
	// editor's Runs view.
	runs, err := workflow.History(ws)
	if err != nil || len(runs) != 1 {
		t.Fatalf("history: %d runs, %v", len(runs), err)
	}
	if tree := runs[0].Tree; len(tree) != 1 || tree[0].Agent != "agent:tester" || !strings.Contains(tree[0].Text, "handed in by agent:tester over MCP") {
		t.Errorf("the run's tree: %+v", tree)
	}

	// A person edits an output; the next hand-in is refused.
	edited := filepath.Join(dir, "pipeline", "01-notes", "output", "summary.md")
	if err := os.WriteFile(edited, []byte("My summary.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = handIn(openWS(t, dir), "01-notes", id, writeout.File{Path: "output/notes.md", Content: "N2"}, writeout.File{Path: "output/summary.md", Content: "S2"})
	if err == nil || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("a person's edit was not guarded: %v", err)
	}
	if got, _ := os.ReadFile(edited); string(got) != "My summary.\n" {
		t.Errorf("the person's edit was overwritten: %q", got)
	}
}

// TestHandInWaitsForNoRun: a hand-in takes the workspace's run lock as
// icm run does, so one made while another run holds it is refused and
// leaves nothing.
func TestHandInWaitsForNoRun(t *testing.T) {
	dir := wstest.Write(t, handInWS)
	ws := openWS(t, dir)
	id := contextID(t, ws, "01-notes")
	lock, err := state.Acquire(ws.Disk, "icm run")
	if err != nil {
		t.Fatal(err)
	}
	_, err = handIn(ws, "01-notes", id, writeout.File{Path: "output/notes.md", Content: "Notes."}, writeout.File{Path: "output/summary.md", Content: "Summary."})
	var locked *state.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("a hand-in during another run: err = %v, want the run lock's refusal", err)
	}
	nothingRecorded(t, dir, "01-notes")
	if _, err := os.Stat(filepath.Join(dir, "pipeline", "01-notes", "output", "notes.md")); err == nil {
		t.Error("a hand-in refused for the lock wrote an output")
	}
	lock.Release()
	if _, err := handIn(ws, "01-notes", id, writeout.File{Path: "output/notes.md", Content: "Notes."}, writeout.File{Path: "output/summary.md", Content: "Summary."}); err != nil {
		t.Fatalf("after the other run: %v", err)
	}
}

// TestHandInIsHeldToTheRubrics: the stage's review rubric checks what an
// agent handed in as it checks a model's output, and the record says
// which check failed.
func TestHandInIsHeldToTheRubrics(t *testing.T) {
	dir := wstest.Write(t, handInWS+"-- pipeline/01-notes/references/review-rubric.md --\n## Required Terms\n- source\n")
	ws := openWS(t, dir)
	sum, err := handIn(ws, "01-notes", contextID(t, ws, "01-notes"), writeout.File{Path: "output/notes.md", Content: "Notes with a source."}, writeout.File{Path: "output/summary.md", Content: "Summary."})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Ran) != 1 || len(sum.Ran[0].Rubric) != 2 {
		t.Fatalf("the rubric did not run on the hand-in: %+v", sum.Ran)
	}
	s := stageState(t, ws, "01-notes")
	if !s.RubricFailed || !strings.Contains(s.Rubric, "1 of 2") || s.Record == nil || len(s.Record.Rubric) != 2 {
		t.Fatalf("state: rubric failed %v, %q, record %+v", s.RubricFailed, s.Rubric, s.Record)
	}
}
