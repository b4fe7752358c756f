package workflow_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestModelCallsKeepBothCounts: a run's trace keeps, per model call, the
// server's prompt count and icm's estimate made before the call;
// ModelCalls reads them back from the newest runs, newest first, and
// leaves out traces from before the estimate was kept.
func TestModelCallsKeepBothCounts(t *testing.T) {
	h := newHarness(t, "course-research", ollamatest.Config{})
	h.srv.Default(ollamatest.Text("1. Install Ollama\n2. Pull a model"))
	// An old trace: its model call has no estimate beside the count.
	old := filepath.Join(h.dir, workspace.HistoryDir, "20200101-000000-000000.jsonl")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte(`{"kind":"model","run_id":"20200101-000000-000000","stage":"01-scope","model":{"Call":1,"Model":"qwen3.5:9b","PromptTokens":900,"PromptEstimate":1000}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, h.mustRun(workflow.Options{Stage: "01-scope"}).RunID)
	}
	reqs := h.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	calls, err := workflow.ModelCalls(h.ws(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Run != ids[2] || calls[1].Run != ids[1] {
		t.Fatalf("calls %+v, want the newest two runs' (%s, %s)", calls, ids[2], ids[1])
	}
	for i, c := range calls {
		if c.Stage != "01-scope" || c.Call != 1 || c.Purpose != "loop" || c.Model != model {
			t.Errorf("call %d: %+v", i, c)
		}
		if want := h.srv.PromptTokens(reqs[2-i]); c.Server != want || c.Guess <= 0 || c.Method != "estimated" {
			t.Errorf("call %d: server %d (the server counted %d), guess %d by %q", i, c.Server, want, c.Guess, c.Method)
		}
	}
	if all, _ := workflow.ModelCalls(h.ws(), 10); len(all) != 3 {
		t.Errorf("with room for 10 runs: %d calls, want the 3 runs' (the old trace has no estimate)", len(all))
	}
}
