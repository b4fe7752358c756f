package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestOverrideIsAFactOfTheRun: a stage run once with a one-off model
// (--model) is judged by the configured settings, not by the override:
// a plain approve approves it, it stays approved through later plain
// runs, the record keeps both models, and only a change of the
// configured model itself makes it stale. Before, the plain approve was
// refused ("the model changed since the last run") and the next plain
// run ran the stage again with the configured model.
func TestOverrideIsAFactOfTheRun(t *testing.T) {
	h := newSmall(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: model, ContextLength: 32768}, {Name: "big:32b", ContextLength: 32768}}})
	scriptSmall(h.srv, 2)
	sum := h.mustRun(workflow.Options{Stage: "01-plan", Override: "big:32b"})
	if len(sum.Ran) != 1 || sum.Ran[0].Stage != "01-plan" {
		t.Fatalf("ran %+v", sum.Ran)
	}
	if reqs := h.srv.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "big:32b" {
		t.Fatalf("the run did not call the override: %+v", reqs)
	}
	s := stageState(t, h.ws(), "01-plan")
	if s.Status != state.Awaiting {
		t.Fatalf("after the override run 01-plan is %s (%s), want awaiting review", s.Status, s.Reason)
	}
	if r := s.Record; r == nil || r.Model != "big:32b" || r.Configured != model || !r.Override {
		t.Fatalf("the record does not keep both models: %+v", r)
	}
	if s.RanWith != "big:32b" || s.Configured != model {
		t.Errorf("the state does not say which model ran: ran with %q, configured %q", s.RanWith, s.Configured)
	}
	// A plain approve approves what is there.
	if _, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())}); err != nil {
		t.Fatalf("plain approve after an override run: %v", err)
	}
	if s := stageState(t, h.ws(), "01-plan"); s.Status != state.Approved {
		t.Fatalf("after approving 01-plan is %s (%s)", s.Status, s.Reason)
	}
	if f := state.FaceOf(stageState(t, h.ws(), "01-plan"), false, ""); f.Text() != "approved · ran with big:32b (configured: "+model+")" {
		t.Errorf("face = %q", f.Text())
	}
	// The next plain run goes on to 02-write and leaves 01-plan alone.
	before := h.read("pipeline/01-plan/output/plan.md")
	sum = h.mustRun(workflow.Options{})
	if len(sum.Ran) != 1 || sum.Ran[0].Stage != "02-write" {
		t.Fatalf("the plain run after approval ran %+v, want 02-write only", sum.Ran)
	}
	if h.read("pipeline/01-plan/output/plan.md") != before {
		t.Error("the approved output of the override run was overwritten")
	}
	for _, r := range h.srv.ChatRequests()[1:] {
		if r.Model != model {
			t.Errorf("a later plain call went to %s, want the configured %s", r.Model, model)
		}
	}
	if p, _ := check.Run(h.ws(), check.Options{}).Pipeline(""); p.Stages[0].Status != state.Approved {
		t.Errorf("01-plan after the next run: %s (%s)", p.Stages[0].Status, p.Stages[0].Reason)
	}

	// Changing the configured model itself makes the stage stale, and the
	// reason names the models.
	cfg := filepath.Join(h.dir, "config.toml")
	data, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), model, "other:7b", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s = stageState(t, h.ws(), "01-plan")
	if s.Status != state.Stale || !strings.Contains(s.Reason, "other:7b") || !strings.Contains(s.Reason, model) {
		t.Errorf("after the configured model changed 01-plan is %s (%s)", s.Status, s.Reason)
	}
}
