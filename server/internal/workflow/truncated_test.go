package workflow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestACutPromptFailsTheStage: a server that says it evaluated as many
// prompt tokens as the window holds (it cut the prompt to fit) fails the
// stage as truncated, naming it, and saves nothing from the answer.
func TestACutPromptFailsTheStage(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Text(plan(2)).WithCounts(1_000_000, 40))
	_, err := h.run(workflow.Options{Stage: "01-plan"})
	if f := fault.From(err); f == nil || f.Kind != fault.KindTruncated || !strings.Contains(f.Msg, "01-plan") {
		t.Fatalf("a cut prompt: %v (kind %v)", err, fault.KindOf(err))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")); err == nil {
		t.Error("an output was saved from a prompt the server cut")
	}
}
