package workflow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestFailedRerunKeepsApprovalAndDownstream approves the whole small
// pipeline, then re-runs its first stage three ways: against a model
// server that is gone, with a model the server lacks, and for real. The
// failures leave every stage approved (the first one saying its re-run
// failed, and why); a successful run that writes the same output leaves
// the rest approved; only one that changes the output makes the next
// stage stale.
func TestFailedRerunKeepsApprovalAndDownstream(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	// The plan calls that reach the server: the first run, the re-run
	// with the same answer, the re-run with a new one.
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Text(plan(2)), ollamatest.Text(plan(2)), ollamatest.Text(plan(3)))
	scriptSmall(h.srv, 0)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	h.mustRun(workflow.Options{})
	h.approve("02-write")
	h.mustRun(workflow.Options{}) // 03-count: a script with an auto gate
	allApproved := map[string]state.Status{"01-plan": state.Approved, "02-write": state.Approved, "03-count": state.Approved}
	wantStates(t, h, "approved pipeline", allApproved)
	planBefore := h.read("pipeline/01-plan/output/plan.md")

	// 1. The model server is gone.
	good := h.client
	gone, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL("http://127.0.0.1:1"), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = gone
	if _, err := h.run(workflow.Options{Stage: "01-plan"}); err == nil {
		t.Fatal("a run against a server that is not there succeeded")
	}
	wantStates(t, h, "after a re-run with no server", allApproved)
	s := stageState(t, h.ws(), "01-plan")
	if s.LastFailure == nil || s.LastFailure.Status != state.RunFailed || !strings.Contains(s.LastFailure.Error, "127.0.0.1:1") {
		t.Fatalf("the failed re-run is not recorded beside the approval: %+v", s.LastFailure)
	}
	face := state.FaceOf(s, false, "")
	if face.Label != "approved" || !strings.HasPrefix(face.Detail, "last re-run failed: ") {
		t.Errorf("01-plan reads %q", face.Text())
	}
	if got := h.read("pipeline/01-plan/output/plan.md"); got != planBefore {
		t.Error("the failed re-run changed the approved output")
	}
	if _, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())}); err != nil {
		t.Errorf("approving the kept output after the failure: %v", err)
	}

	// 2. A model the server does not have (a typo in --model).
	h.client = good
	if _, err := h.run(workflow.Options{Stage: "01-plan", Model: "qwen3.5:9"}); fault.KindOf(err) != fault.KindModelMissing {
		t.Fatalf("a run with a missing model: %v", err)
	}
	wantStates(t, h, "after a re-run with a missing model", allApproved)

	// 3. A successful re-run that writes the same output: nothing goes stale.
	h.mustRun(workflow.Options{Stage: "01-plan"})
	wantStates(t, h, "after a re-run with the same output", allApproved)
	if s := stageState(t, h.ws(), "01-plan"); s.LastFailure != nil {
		t.Errorf("a successful run kept the old failure: %+v", s.LastFailure)
	}

	// 4. A successful re-run that changes the output: the stage needs
	// review and the stage that reads it is stale.
	h.mustRun(workflow.Options{Stage: "01-plan"})
	wantStates(t, h, "after a re-run with a new output", map[string]state.Status{
		"01-plan": state.Awaiting, "02-write": state.Stale, "03-count": state.Approved})
}

// TestFailedFirstRunIsFailed: with no good run to keep, a failure is the
// stage's state.
func TestFailedFirstRunIsFailed(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	gone, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL("http://127.0.0.1:1"), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = gone
	if _, err := h.run(workflow.Options{}); err == nil {
		t.Fatal("no error")
	}
	s := stageState(t, h.ws(), "01-plan")
	if s.Status != state.Failed || s.LastFailure != nil {
		t.Fatalf("first run failed: %s %+v", s.Status, s.LastFailure)
	}
	if f := state.FaceOf(s, false, ""); f.Tone != state.ToneError || f.Icon != "error" {
		t.Errorf("a failed stage reads %+v", f)
	}
}

func wantStates(t *testing.T, h *harness, when string, want map[string]state.Status) {
	t.Helper()
	got := h.status()
	for stage, w := range want {
		if got[stage] != w {
			t.Errorf("%s: %s is %s, want %s", when, stage, got[stage], w)
		}
	}
}
