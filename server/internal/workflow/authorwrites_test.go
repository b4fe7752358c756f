package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// newWith is a harness on the workspace of a txtar, with a scripted model
// that calls tools.
func newWith(t *testing.T, txtar string) *harness {
	t.Helper()
	return newOn(t, txtar, []string{"completion", "tools"})
}

// again is a harness on the same folder with a model of its own, for a
// second run scripted otherwise.
func (h *harness) again() *harness {
	h.t.Helper()
	h2 := newWith(h.t, "-- unused.txt --\n")
	h2.dir = h.dir
	return h2
}

func (h *harness) approveErr(stage string) error {
	_, err := workflow.Approve(context.Background(), h.ws(), stage, workflow.ApproveOptions{Permit: trusted(h.ws())})
	return err
}

const budgets = `
-- CLAUDE.md --
# Identity
You plan small projects.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-plan/CONTEXT.md --
# Stage: 01-plan

## Process
Plan the garden: what to plant, what it costs, what could go wrong.

## Outputs
- plan.md -> output/
- budget.md -> output/
- risks.md -> output/
`

// A partial answer is kept: the files the model wrote are saved, the
// missing one is named in the record and the state ("2 of 3 outputs
// written; still missing: output/risks.md"), and running the stage again
// writes the rest while the files already written stay.
func TestAPartialAnswerIsKept(t *testing.T) {
	h := newWith(t, budgets)
	scriptWrites(h, write("output/plan.md", "# Plan\n"), write("output/budget.md", "# Budget\n"))
	sum := h.mustRun(workflow.Options{})
	res := sum.Ran[0]
	if res.Gate == nil || strings.Join(res.Gate.Missing, ",") != "output/risks.md" {
		t.Errorf("the result's gate = %+v, want output/risks.md missing", res.Gate)
	}
	if h.read("stages/01-plan/output/plan.md") != "# Plan\n" || h.read("stages/01-plan/output/budget.md") != "# Budget\n" {
		t.Error("the files written were not saved")
	}
	s := stageState(t, h.ws(), "01-plan")
	if s.Status != state.Awaiting || s.Record.Writes == nil || s.Record.Writes.MissingLine() != "2 of 3 outputs written; still missing: output/risks.md" {
		t.Fatalf("state %s, writes %+v", s.Status, s.Record.Writes)
	}
	if lines := res.Gate.Lines(nil); len(lines) == 0 || !strings.HasPrefix(lines[0].Text, "2 of 3 outputs written; still missing: output/risks.md") {
		t.Errorf("the gate does not say what is missing first: %+v", lines)
	}

	h2 := h.again()
	scriptWrites(h2, write("output/risks.md", "# Risks\n"))
	h2.mustRun(workflow.Options{Stage: "01-plan"})
	if h.read("stages/01-plan/output/plan.md") != "# Plan\n" || h.read("stages/01-plan/output/risks.md") != "# Risks\n" {
		t.Error("the re-run for the rest did not keep what was written and add the rest")
	}
	desc := string(mustJSON(t, h2.srv.ChatRequests()[0].Tools))
	if !strings.Contains(desc, "output/risks.md") || !strings.Contains(desc, "kept from the last run") {
		t.Errorf("the re-run's write tool does not say what is kept and what is left: %s", desc)
	}
	s = stageState(t, h.ws(), "01-plan")
	if s.Record.Writes.Partial() || len(s.Record.Outputs) != 3 {
		t.Errorf("after the re-run: writes %+v, outputs %v", s.Record.Writes, s.Record.Outputs)
	}
}

const reviews = `
-- CLAUDE.md --
# Identity
You review code.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-review/CONTEXT.md --
# Stage: 01-review

## Process
Review the change for readability and risk.

## Outputs
- A review report with findings
- A list of follow-up questions
`

// A contract that names no output file lets the model write new files
// into output/: they are kept, listed in the record as written without a
// declaration, counted as the stage's outputs and approvable. A file's
// kind is checked as it is written: Markdown saved as a .json is refused
// with the reason, and the model's second try is kept.
func TestWithoutDeclaredOutputsTheModelWritesIntoOutput(t *testing.T) {
	h := newWith(t, reviews)
	scriptWrites(h, write("output/review.md", "# Review\n"), write("output/questions.json", "- why?\n"), write("output/.notes", "x"))
	h.srv.On(ollamatest.HasToolResult("write_output")).Reply(ollamatest.Calls(write("output/questions.json", `{"questions": ["why?"]}`)))
	res := h.mustRun(workflow.Options{}).Ran[0]
	want := []string{"stages/01-review/output/questions.json", "stages/01-review/output/review.md"}
	if strings.Join(res.Outputs, ",") != strings.Join(want, ",") {
		t.Fatalf("outputs = %v, want %v", res.Outputs, want)
	}
	results := strings.Join(toolTexts(h.srv.ChatRequests()[1]), "\n")
	if !strings.Contains(results, "not valid JSON") || !strings.Contains(results, "hidden") {
		t.Errorf("the refusals do not say why:\n%s", results)
	}
	s := stageState(t, h.ws(), "01-review")
	if s.Status != state.Awaiting || s.Record.Writes == nil || strings.Join(s.Record.Writes.Undeclared, ",") != strings.Join(want, ",") {
		t.Fatalf("state %s, writes %+v", s.Status, s.Record.Writes)
	}
	h.approve("01-review")
	if got := h.status()["01-review"]; got != state.Approved {
		t.Errorf("after approve: %s", got)
	}
}

const endpoints = `
-- CLAUDE.md --
# Identity
You document services.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- _config/endpoint-map.md --
# Endpoint map

(to be filled in)
-- stages/01-map/CONTEXT.md --
# Stage: 01-map

## Process
Populate ` + "`_config/endpoint-map.md`" + ` with every endpoint, and write notes.

## Outputs
| Artifact | Location |
|---|---|
| Endpoint map | ` + "`_config/endpoint-map.md`" + ` |
| Notes | ` + "`output/notes.md`" + ` |
`

// A file the contract names outside output/ is a proposed change: kept
// with the run and listed in its record, the file itself untouched until
// the person approves, then applied. When the file changed since the run,
// approval refuses with a fresh diff and leaves the person's edit alone.
func TestAProposedChangeIsAppliedAtApprovalAndNotBefore(t *testing.T) {
	h := newWith(t, endpoints)
	scriptWrites(h, write("_config/endpoint-map.md", "# Endpoint map\n\n- GET /health\n"), write("output/notes.md", "Notes.\n"))
	h.mustRun(workflow.Options{})
	if got := h.read("_config/endpoint-map.md"); got != "# Endpoint map\n\n(to be filled in)\n" {
		t.Fatalf("the file outside output/ changed before approval: %q", got)
	}
	s := stageState(t, h.ws(), "01-map")
	if s.Status != state.Awaiting || s.Record.Writes == nil || len(s.Record.Writes.Proposals) != 1 {
		t.Fatalf("state %s, writes %+v", s.Status, s.Record.Writes)
	}
	p := s.Record.Writes.Proposals[0]
	if p.Target != "_config/endpoint-map.md" || p.Base != state.Hash([]byte("# Endpoint map\n\n(to be filled in)\n")) || h.read(p.Kept) != "# Endpoint map\n\n- GET /health\n" {
		t.Errorf("proposal = %+v", p)
	}
	h.approve("01-map")
	if got := h.read("_config/endpoint-map.md"); got != "# Endpoint map\n\n- GET /health\n" {
		t.Errorf("approval did not apply the change: %q", got)
	}
	a, err := state.ReadApproval(h.ws().Disk, mustStage(t, h, "01-map").Dir)
	if err != nil || a == nil || strings.Join(a.Applied, ",") != "_config/endpoint-map.md" {
		t.Errorf("approval = %+v, %v", a, err)
	}

	// Run again; the person edits the file before approving.
	h2 := h.again()
	scriptWrites(h2, write("_config/endpoint-map.md", "# Endpoint map\n\n- GET /ready\n"), write("output/notes.md", "More notes.\n"))
	h2.mustRun(workflow.Options{Stage: "01-map"})
	edited := "# Endpoint map\n\n- GET /health\n- POST /orders (mine)\n"
	if err := os.WriteFile(filepath.Join(h.dir, "_config/endpoint-map.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	err = h.approveErr("01-map")
	var fe *fault.Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "_config/endpoint-map.md changed since the run") ||
		!strings.Contains(fe.Detail, "-- POST /orders (mine)") || !strings.Contains(fe.Detail, "+- GET /ready") {
		t.Fatalf("approve = %v (detail %q), want a refusal with a fresh diff", err, detailOf(fe))
	}
	if got := h.read("_config/endpoint-map.md"); got != edited {
		t.Errorf("the person's edit was overwritten: %q", got)
	}
}

func detailOf(fe *fault.Error) string {
	if fe == nil {
		return ""
	}
	return fe.Detail
}

const committed = `
-- CLAUDE.md --
# Identity
You write menus.
-- config.toml --
[model]
name = "qwen3.5:9b"
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
Write the shopping list for the menu.

## Outputs
- list.md -> output/
`

// Outputs committed with the workspace are a result, not an edit: the
// state says so, a run asks once whether to keep them or regenerate them
// (no model call until it is answered); keeping them records approvals
// as adopted and runs nothing over them; regenerating runs the stage,
// the committed file kept in history.
func TestCommittedOutputsAreAdoptedOrRegenerated(t *testing.T) {
	h := newWith(t, committed)
	h.srv.Default(ollamatest.Text("# Menu\n"))
	s := stageState(t, h.ws(), "01-menu")
	if !s.Committed || !strings.Contains(state.FaceOf(s, false, "").Text(), "committed, not made by icm") {
		t.Fatalf("status of committed outputs: committed %v, %q", s.Committed, state.FaceOf(s, false, "").Text())
	}
	_, err := h.run(workflow.Options{Stage: "01-menu"})
	var fe *fault.Error
	if !errors.As(err, &fe) || !hasAction(fe, fault.Adopt) || !hasAction(fe, fault.Regenerate) {
		t.Fatalf("run = %v, want the question: adopt or regenerate", err)
	}
	if n := len(h.srv.ChatRequests()); n != 0 {
		t.Fatalf("%d model calls before the question was answered", n)
	}

	sum := h.mustRun(workflow.Options{Stage: "01-menu", Committed: state.KeepCommitted})
	if len(sum.Ran) != 0 || strings.Join(sum.Adopted, ",") != "01-menu" || len(h.srv.ChatRequests()) != 0 {
		t.Fatalf("adopt: ran %d, adopted %v, %d model calls", len(sum.Ran), sum.Adopted, len(h.srv.ChatRequests()))
	}
	s = stageState(t, h.ws(), "01-menu")
	if s.Status != state.Approved || s.Approval == nil || !s.Approval.Adopted || s.Approval.By != "user" || h.read("stages/01-menu/output/menu.md") != "# The author's menu\n" {
		t.Fatalf("after adopt: %s, approval %+v", s.Status, s.Approval)
	}
	if !strings.Contains(state.FaceOf(s, false, "").Text(), "adopted") {
		t.Errorf("the state does not say it was adopted: %s", state.FaceOf(s, false, "").Text())
	}

	r := newWith(t, committed)
	r.srv.Default(ollamatest.Text("# Menu\n\nSoup on Monday.\n"))
	r.mustRun(workflow.Options{Committed: state.RegenerateCommitted})
	if got := r.read("stages/01-menu/output/menu.md"); got != "# Menu\n\nSoup on Monday.\n" {
		t.Errorf("regenerate did not run the stage: %q", got)
	}
	vs, err := workflow.Versions(r.ws(), "01-menu")
	if err != nil || len(vs) != 1 || vs[0].Files["menu.md"] == "" || !strings.HasSuffix(vs[0].Label, "-committed") {
		t.Errorf("versions = %+v, %v: want the committed file kept", vs, err)
	}
}

func hasAction(fe *fault.Error, id fault.ActionID) bool {
	for _, a := range fe.Actions {
		if a.ID == id {
			return true
		}
	}
	return false
}

const archaeology = `
-- CLAUDE.md --
# Identity
You study a repository's history.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-load/CONTEXT.md --
# Stage: 01-load

Load the commit table into a database.

## Process
1. Install sqlite-utils if needed.
2. Import the table into the database.

## Commands

` + "```bash\nsqlite-utils insert history.db commits commits.csv --csv\n```" + `

## Outputs
- output/history.db
-- stages/02-read/CONTEXT.md --
# Stage: 02-read

## Process
Describe how the database is laid out.

## Outputs
- layout.md -> output/
`

// A stage whose outputs only a command can make is a manual step: the
// run calls no model and writes nothing, says what the person is to do,
// and waits for their approval; once approved, the next stage runs.
func TestAManualStepWaitsForThePerson(t *testing.T) {
	h := newWith(t, archaeology)
	h.srv.Default(ollamatest.Text("# Layout\n"))
	sum := h.mustRun(workflow.Options{})
	if len(sum.Ran) != 1 || sum.Ran[0].Manual == "" || len(sum.Ran[0].Outputs) != 0 {
		t.Fatalf("ran = %+v", sum.Ran)
	}
	if !strings.Contains(sum.Ran[0].Manual, "sqlite-utils insert history.db") {
		t.Errorf("the manual step does not tell what to do: %q", sum.Ran[0].Manual)
	}
	if n := len(h.srv.ChatRequests()); n != 0 {
		t.Fatalf("a manual step called the model %d times", n)
	}
	s := stageState(t, h.ws(), "01-load")
	if s.Status != state.Awaiting || !strings.Contains(state.FaceOf(s, false, "").Text(), "manual step") {
		t.Fatalf("state %s: %s", s.Status, state.FaceOf(s, false, "").Text())
	}
	h.approve("01-load")
	h.mustRun(workflow.Options{})
	if got := h.read("stages/02-read/output/layout.md"); got != "# Layout\n" {
		t.Errorf("the stage after the manual step: %q", got)
	}
}
