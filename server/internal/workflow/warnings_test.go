package workflow_test

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// uncertain is a workspace whose first stage icm reads with warnings only:
// an input a later stage writes, a pattern no file fits yet, a heading the
// reference lacks, a Verify line and a layer written some other way, an
// output listed twice. Nothing of it is certain to make the run wrong.
const uncertain = `
-- CLAUDE.md --
# Who
You write.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- pipeline/01-draft/CONTEXT.md --
# Stage: 01-draft

## Inputs
- Layer 4 (working): ../02-polish/output/polished.md
- Layer 4 (working): chapters/*.md
- Layer 3 (reference): style.md#Voice and tone
- Layer 9 (working): notes.md

## Process
DRAFT the piece from the notes.

## Verify
- headings plenty

## Outputs
- draft.md -> output/
- draft.md -> output/
-- pipeline/01-draft/notes.md --
Start with the harbour.
-- pipeline/01-draft/style.md --
# Style

Short sentences.
-- pipeline/02-polish/CONTEXT.md --
# Stage: 02-polish

## Inputs
- Layer 4 (working): ../01-draft/output/draft.md

## Process
POLISH the draft.

## Outputs
- polished.md -> output/
`

// TestAStageReadWithWarningsRuns: a stage whose contract has warnings and
// no error runs, and the model gets what icm could resolve: the whole
// reference where the heading it names is not there, the notes whatever
// layer they were given.
func TestAStageReadWithWarningsRuns(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, uncertain), ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("DRAFT the piece")).Reply(ollamatest.Text("# Draft\n\nThe harbour at dawn."))
	sum, err := h.run(workflow.Options{Stage: "01-draft"})
	if err != nil {
		t.Fatalf("the stage was refused: %v", err)
	}
	if len(sum.Ran) != 1 || sum.Ran[0].Status != "done" {
		t.Fatalf("ran %+v", sum.Ran)
	}
	if got := h.read("pipeline/01-draft/output/draft.md"); !strings.Contains(got, "harbour at dawn") {
		t.Errorf("the output holds %q", got)
	}
	reqs := h.srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("no model call")
	}
	prompt := reqs[0].System() + reqs[0].LastUser()
	for _, want := range []string{"Short sentences.", "Start with the harbour."} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
}

// TestWarningsAreRecordedWithTheRun: what icm warned of in the contract
// when the stage ran is kept with the run (its result and its record on
// disk), each at its line, so the gate can show it.
func TestWarningsAreRecordedWithTheRun(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, uncertain), ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("DRAFT the piece")).Reply(ollamatest.Text("# Draft\n\nThe harbour at dawn."))
	sum, err := h.run(workflow.Options{Stage: "01-draft"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{contract.CodeInputLater: 4, contract.CodeScopeNotFound: 6, contract.CodeBadLayer: 7,
		contract.CodeBadVerify: 13, contract.CodeOutputConflict: 17}
	check := func(where string, ws []state.Warning) {
		got := map[string]int{}
		for _, w := range ws {
			if w.File != "pipeline/01-draft/CONTEXT.md" || w.Message == "" {
				t.Errorf("%s: warning %+v", where, w)
			}
			got[w.Code] = w.Line
		}
		for code, line := range want {
			if got[code] != line {
				t.Errorf("%s: %s at line %d, want line %d (all: %+v)", where, code, got[code], line, ws)
			}
		}
	}
	if sum.Ran[0].Gate == nil {
		t.Fatal("the result has no gate summary")
	}
	check("the result's gate", sum.Ran[0].Gate.Warnings)
	rec, err := state.ReadRecord(h.ws().Disk, mustStage(t, h, "01-draft").Dir)
	if err != nil {
		t.Fatal(err)
	}
	check("the record", rec.Warnings)
}

// scoped is a workspace whose second stage reads two headings of the
// first stage's output.
const scoped = `
-- CLAUDE.md --
# Who
-- config.toml --
[model]
name = "qwen3.5:9b"
-- pipeline/01-brief/CONTEXT.md --
# Stage: 01-brief

## Process
WRITE the brief.

## Outputs
- brief.md -> output/
-- pipeline/02-plan/CONTEXT.md --
# Stage: 02-plan

## Inputs
- Layer 4 (working): ../01-brief/output/brief.md#Goals
- Layer 4 (working): ../01-brief/output/brief.md#Budget

## Process
PLAN it.

## Outputs
- plan.md -> output/
`

// TestTheGateSaysWhichHeadingsLaterStagesLack: when a stage's output
// lacks a heading a later stage reads of it, the run's result says so at
// the gate: the heading, the output, the stage that reads it and where.
func TestTheGateSaysWhichHeadingsLaterStagesLack(t *testing.T) {
	h := harnessIn(t, wstest.Write(t, scoped), ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("WRITE the brief")).Reply(ollamatest.Text("# Brief\n\n## Goals\n\nA dry boat."))
	sum, err := h.run(workflow.Options{Stage: "01-brief"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran[0].Gate == nil {
		t.Fatal("the result has no gate summary")
	}
	lacks := sum.Ran[0].Gate.Lacked
	if len(lacks) != 1 {
		t.Fatalf("lacked %+v, want the one heading Budget", lacks)
	}
	l := lacks[0]
	if l.Heading != "Budget" || l.Output != "pipeline/01-brief/output/brief.md" || l.Reader != "02-plan" || l.Line != 5 ||
		l.Contract != "pipeline/02-plan/CONTEXT.md" {
		t.Errorf("lacked %+v", l)
	}
}
