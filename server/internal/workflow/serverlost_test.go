package workflow_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestServerStoppedMidForEach stops the model server while the third of
// three For each items waits for its answer. The run fails with what
// happened in words, where, and what is kept: "the model server at URL
// stopped answering during 02-write; 2 of 3 items are kept", with Start
// first among the fixes. The two finished items are kept for the next
// run, which asks the server only for the third. Before, the stage's
// error was the client's ("stage 02-write [3/3]: unable to reach the
// Ollama server ... (after 6 attempts over 10.086s): Post ...").
func TestServerStoppedMidForEach(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Text(plan(3)))
	var writes atomic.Int32
	third := make(chan struct{})
	h.srv.On(ollamatest.UserContains("WRITE the part")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		if writes.Add(1) == 3 {
			close(third)
			return ollamatest.Hang()
		}
		return ollamatest.Text("## A part\n\nText of the part.")
	})
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	// The client a session builds: retries within a budget.
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(time.Minute, 6))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	url := h.srv.URL()
	go func() {
		<-third
		_ = h.srv.Close()
	}()
	_, err = h.run(workflow.Options{})
	fe := fault.From(err)
	if fe == nil || fe.Kind != fault.KindModelUnreachable {
		t.Fatalf("err = %v (kind %v), want model-unreachable", err, fault.KindOf(err))
	}
	if want := "the model server at " + url + " stopped answering during 02-write; 2 of 3 items are kept"; fe.Msg != want {
		t.Errorf("message %q, want %q", fe.Msg, want)
	}
	if fe.Stage != "02-write" || len(fe.Actions) == 0 || fe.Actions[0].ID != fault.StartServer {
		t.Errorf("stage %q, actions %v: want 02-write, and Start first", fe.Stage, fe.Actions)
	}
	if s := stageState(t, h.ws(), "02-write"); s.Status != state.Failed {
		t.Errorf("02-write is %s, want failed", s.Status)
	}

	// The next run, against a server that answers, asks only for the third item.
	srv2 := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}})
	srv2.Default(ollamatest.Text("## C\n\nThe third part."))
	if h.client, err = llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv2.URL()), llm.WithRetry(0, 1)); err != nil {
		t.Fatal(err)
	}
	sum := h.mustRun(workflow.Options{})
	if len(sum.Ran) != 1 || sum.Ran[0].Reused != 2 || srv2.Stats().Chats != 1 {
		t.Errorf("the resumed run reused %d items and made %d calls, want 2 and 1", sum.Ran[0].Reused, srv2.Stats().Chats)
	}
}
