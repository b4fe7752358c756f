package llm

import (
	"context"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
)

// The failures people meet most often become faults with the fixes the
// editor offers as buttons and the CLI as commands.
func TestErrorsBecomeFaults(t *testing.T) {
	refused := closedport.URL(t)
	missing := newFake(t)
	missing.chat = status(404, `{"error":"model 'tiny' not found"}`)
	busy := newFake(t)
	busy.chat = status(503, `{"error":"busy"}`)
	broken := newFake(t)
	broken.chat = status(500, `{"error":"llama runner process has terminated"}`)

	cases := []struct {
		name    string
		url     string
		kind    fault.Kind
		actions []fault.Action
	}{
		{"refused", refused, fault.KindModelUnreachable, []fault.Action{
			{ID: fault.StartServer, URL: refused, Command: "ollama serve"}, {ID: fault.SetServer, URL: refused}}},
		{"missing", missing.srv.URL, fault.KindModelMissing, []fault.Action{
			{ID: fault.PullModel, Model: "tiny", URL: missing.srv.URL}, {ID: fault.ChooseModel}}},
		// A busy server was reached: starting it is not the fix.
		{"busy", busy.srv.URL, fault.KindModelFailed, nil},
		{"broken", broken.srv.URL, fault.KindModelFailed, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := newTestClient(t, c.url, newFakeTime(), WithRetry(time.Hour, 2))
			_, err := o.Chat(context.Background(), ChatRequest{Stage: "01-scope", Messages: userMsg("hi")})
			f := fault.From(err)
			if f.Kind != c.kind || f.Stage != "01-scope" || f.Hint == "" {
				t.Fatalf("fault = {%s stage %q hint %q} from %v", f.Kind, f.Stage, f.Hint, err)
			}
			if len(f.Actions) != len(c.actions) {
				t.Fatalf("actions = %+v, want %+v", f.Actions, c.actions)
			}
			for i := range c.actions {
				if f.Actions[i] != c.actions[i] {
					t.Errorf("action %d = %+v, want %+v", i, f.Actions[i], c.actions[i])
				}
			}
			if f.Msg != err.Error() {
				t.Errorf("message %q, want the error's own %q", f.Msg, err)
			}
		})
	}
}
