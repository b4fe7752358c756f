package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// runnerStoppedReply is what the real server answers when its runner
// stops during a fan-out (testdata/runner-stopped.json).
type runnerStoppedReply struct {
	StreamError string `json:"stream_error"`
	Status      int    `json:"status"`
	Error       string `json:"error"`
}

func readRunnerStopped(t testing.TB) runnerStoppedReply {
	t.Helper()
	data, err := os.ReadFile("testdata/runner-stopped.json")
	if err != nil {
		t.Fatal(err)
	}
	var r runnerStoppedReply
	if err := json.Unmarshal(data, &r); err != nil || r.StreamError == "" || r.Error == "" {
		t.Fatalf("testdata/runner-stopped.json: %v", err)
	}
	return r
}

// TestRunnerStoppedDuringAFanOut: the scripted server replays what the
// real one answers when its runner stops as the items of a For each stage
// run at once (the streaming item's error, the 500 of the one that
// started the copy). The stage fails with a fault of its own that says
// the runner stopped while items ran at once, names the likely cause
// (the multi-user cache on llama.cpp's runner) and the fixes, and opens
// config.toml; before, it was the server's bare words as a failed call.
func TestRunnerStoppedDuringAFanOut(t *testing.T) {
	reply := readRunnerStopped(t)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}, Slots: 4, AllowUnscripted: true})
	srv.On(ollamatest.LastUserContains("## Part A")).Reply(ollamatest.StreamFailure("The part begins", reply.StreamError))
	srv.On(ollamatest.LastUserContains("## Part B")).Reply(ollamatest.Fail(reply.Status, reply.Error))
	srv.Default(ollamatest.Text("## Part\n\nText of the part."))
	dir := forEachWorkspace(t, 4, 2)
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := workflow.New(openWS(t, dir), workflow.Options{Client: client, Stage: "01-write", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(context.Background())
	f := fault.From(err)
	if f.Kind != fault.KindRunnerStopped {
		t.Fatalf("kind %s: %v", f.Kind, err)
	}
	if !strings.Contains(f.Msg, "runner stopped during 01-write") || !strings.Contains(f.Msg, "2 items at once") {
		t.Errorf("message %q does not say the runner stopped while the stage ran items at once", f.Msg)
	}
	for _, want := range []string{"OLLAMA_MULTIUSER_CACHE", "llama.cpp", "parallel = 1"} {
		if !strings.Contains(f.Hint, want) {
			t.Errorf("hint %q does not name %q", f.Hint, want)
		}
	}
	if len(f.Actions) == 0 || f.Actions[0].ID != fault.OpenFile || !strings.HasSuffix(f.Actions[0].File, "config.toml") {
		t.Errorf("actions %+v, want config.toml opened", f.Actions)
	}
}
