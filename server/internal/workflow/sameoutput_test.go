package workflow_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// stageEnd is the last stage-end event of stage in h's events.
func stageEnd(t *testing.T, h *harness, stage string) report.Event {
	t.Helper()
	for i := len(h.events) - 1; i >= 0; i-- {
		if ev := h.events[i]; ev.Kind == report.EventStageEnd && ev.Stage == stage {
			return ev
		}
	}
	t.Fatalf("no stage-end of %s", stage)
	return report.Event{}
}

// TestStageEndSaysWhenTheOutputIsTheSame: the engine, not its front ends,
// tells a re-run that wrote what the last good run wrote (an approval
// stands) from one that wrote something else. A first run has nothing to
// be the same as.
func TestStageEndSaysWhenTheOutputIsTheSame(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	parts := 2
	h.srv.On(ollamatest.UserContains("PLAN the parts")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn { return ollamatest.Text(plan(parts)) })
	h.mustRun(workflow.Options{Stage: "01-plan"})
	if stageEnd(t, h, "01-plan").SameOutput {
		t.Error("a first run reads as the same output")
	}
	h.approve("01-plan")
	h.mustRun(workflow.Options{Stage: "01-plan"})
	if !stageEnd(t, h, "01-plan").SameOutput {
		t.Error("a re-run with the same answer does not read as the same output")
	}
	parts = 3
	h.mustRun(workflow.Options{Stage: "01-plan", Force: true})
	if stageEnd(t, h, "01-plan").SameOutput {
		t.Error("a re-run with another answer reads as the same output")
	}
}
