package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// garden is one model stage with a review rubric for every output, one
// for the plan alone, a Review Gate for the person, and an auto gate
// that must not approve past a failing rubric.
const garden = `
-- CLAUDE.md --
# Identity
You plan gardens.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- pipeline/01-plan/CONTEXT.md --
# Stage: 01-plan

## Process
Plan the beds.

## Review Gate
- Every bed has a crop.
- No crop is planted twice.

## Outputs
- plan.md -> output/

## Gate
auto
-- pipeline/01-plan/references/review-rubric.md --
# What every output needs

## Required Sections
- Beds
- Risks

## Forbidden Terms
- lorem

## Required Artifact Shapes
- one table per bed
-- pipeline/01-plan/references/plan-rubric.md --
## Required Terms
- compost
-- pipeline/01-plan/references/other-rubric.md --
## Required Terms
- never checked: no output is called other
`

func newGarden(t *testing.T, answer string) *harness {
	t.Helper()
	cfg := ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion", "tools"}}}}
	h := &harness{t: t, dir: wstest.Write(t, garden), srv: ollamatest.New(t, cfg)}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	h.srv.Default(ollamatest.Text(answer))
	return h
}

// A run checks the rubrics beside Verify: the record, the state's face and
// the stage's result say which checks failed; the auto gate does not
// approve; a plain approve is refused as for a failed Verify, --force
// approves; fixing the output makes a plain approve pass.
func TestRubricAtTheGate(t *testing.T) {
	h := newGarden(t, "# Plan\n\n## Beds\nBeans with compost.\n\nlorem\n")
	sum := h.mustRun(workflow.Options{})
	res := sum.Ran[0]
	if got := state.RubricLine(res.Rubric); got != `2 of 4 rubric checks pass: missing section "Risks"` {
		t.Errorf("rubric line = %q", got)
	}
	files := map[string]bool{}
	for _, c := range res.Rubric {
		files[c.Rubric] = true
	}
	if !files["pipeline/01-plan/references/plan-rubric.md"] || files["pipeline/01-plan/references/other-rubric.md"] {
		t.Errorf("rubrics applied = %v: want review-rubric.md and plan-rubric.md, not other-rubric.md", files)
	}
	if want := "- Every bed has a crop.\n- No crop is planted twice."; res.ReviewGate != want {
		t.Errorf("review gate = %q, want %q", res.ReviewGate, want)
	}
	if len(sum.Approved) != 0 {
		t.Errorf("the auto gate approved past a failing rubric: %v", sum.Approved)
	}
	s := stageState(t, h.ws(), "01-plan")
	if s.Status != state.Awaiting || !s.RubricFailed || s.Record == nil || len(s.Record.Rubric) != len(res.Rubric) {
		t.Fatalf("state = %s rubricFailed=%v record=%v", s.Status, s.RubricFailed, s.Record != nil)
	}
	if f := state.FaceOf(s, false, ""); !strings.Contains(f.Detail, `2 of 4 rubric checks pass: missing section "Risks"`) {
		t.Errorf("face detail = %q, want the rubric line", f.Detail)
	}

	_, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())})
	if !errors.Is(err, workflow.ErrVerifyFailed) || fault.KindOf(err) != fault.KindVerifyFailed {
		t.Fatalf("approve = %v, want a refusal like a failed Verify", err)
	}
	for _, want := range []string{`missing section "Risks"`, `forbidden term "lorem" used`, "pipeline/01-plan/output/plan.md:6"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}

	// The person fixes the output: the rubric runs again on it.
	out := filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")
	if err := os.WriteFile(out, []byte("# Plan\n\n## Beds\nBeans with compost.\n\n## Risks\nSlugs.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())}); err != nil {
		t.Fatalf("approve after the fix: %v", err)
	}
}

// --force approves past a failing rubric, and the approval says it was forced.
func TestRubricForce(t *testing.T) {
	h := newGarden(t, "# Plan\n\nnothing\n")
	h.mustRun(workflow.Options{})
	a, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws()), Force: true})
	if err != nil || !a.Forced {
		t.Fatalf("forced approve = %+v, %v", a, err)
	}
}

// An output that meets every rubric passes the auto gate, as one that
// passes every Verify check does.
func TestRubricPassingAutoApproves(t *testing.T) {
	h := newGarden(t, "# Plan\n\n## Beds\nBeans with compost.\n\n## Risks\nSlugs.\n")
	sum := h.mustRun(workflow.Options{})
	if got := state.RubricLine(sum.Ran[0].Rubric); got != "4 of 4 rubric checks pass" {
		t.Errorf("rubric line = %q", got)
	}
	if len(sum.Approved) != 1 {
		t.Errorf("approved = %v, want the auto gate to approve", sum.Approved)
	}
}
