package llm

import (
	"context"
	"errors"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// status answers every chat call with code and body.
func status(code int, body string, header ...string) func(http.ResponseWriter, *http.Request, *api.ChatRequest, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ *api.ChatRequest, _ int) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

func TestChatErrorKinds(t *testing.T) {
	cases := []struct {
		name     string
		code     int
		body     string
		kind     Kind
		attempts int
		hint     string
		answer   string // what the message must quote of the server's answer
	}{
		{"model missing", 404, `{"error":"model 'tiny' not found"}`, KindModelMissing, 1, "ollama pull tiny", "model 'tiny' not found"},
		{"not an ollama server", 404, "404 page not found", KindBadRequest, 1, "does not look like an Ollama server", "404 page not found"},
		{"bad request", 400, `{"error":"invalid options"}`, KindBadRequest, 1, "retrying will not help", "invalid options"},
		{"no tools", 400, `{"error":"registry.ollama.ai/library/tiny:latest does not support tools"}`, KindBadRequest, 1, "cannot call tools", "does not support tools"},
		{"unauthorised", 401, `{"error":"unauthorized"}`, KindBadRequest, 1, "refused access", "unauthorized"},
		{"queue full", 503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, KindUnavailable, 6, "busy", "maximum pending requests exceeded"},
		{"rate limited", 429, `{"error":"too many requests"}`, KindUnavailable, 6, "busy", "too many requests"},
		{"bad gateway", 502, "<html>bad gateway</html>", KindUnavailable, 6, "busy", "<html>bad gateway</html>"},
		{"gateway timeout", 504, "", KindUnavailable, 6, "busy", "504 Gateway Timeout"},
		{"server error: one more try", 500, `{"error":"llama runner process has terminated"}`, KindOther, 2, "server log", "llama runner process has terminated"},
		{"not implemented: no retry", 501, `{"error":"no"}`, KindOther, 1, "server log", "501 Not Implemented: no"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.chat = status(c.code, c.body)
			clock := newFakeTime()
			o := newTestClient(t, f.srv.URL, clock)
			_, err := o.Chat(context.Background(), ChatRequest{Stage: "01-scope", Messages: userMsg("hi")})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.Kind != c.kind {
				t.Errorf("kind = %v, want %v (%v)", e.Kind, c.kind, err)
			}
			if got := len(f.chatCalls()); got != c.attempts || e.Attempts != c.attempts {
				t.Errorf("%d requests, Attempts %d; want %d", got, e.Attempts, c.attempts)
			}
			if len(clock.sleeps()) != c.attempts-1 {
				t.Errorf("slept %d times, want %d", len(clock.sleeps()), c.attempts-1)
			}
			if !strings.Contains(e.Hint, c.hint) {
				t.Errorf("hint %q does not contain %q", e.Hint, c.hint)
			}
			if e.Status != c.code || e.Stage != "01-scope" {
				t.Errorf("status %d stage %q, want %d and 01-scope", e.Status, e.Stage, c.code)
			}
			if !strings.Contains(e.Error(), c.answer) {
				t.Errorf("message %q does not carry the server's answer %q", e.Error(), c.answer)
			}
		})
	}
}

func TestShowModelMissing(t *testing.T) {
	f := newFake(t)
	f.show = func(w http.ResponseWriter, model string) {
		writeJSON(w, 404, map[string]string{"error": "model '" + model + "' not found"})
	}
	o := newTestClient(t, f.srv.URL, newFakeTime())
	_, err := o.Chat(context.Background(), ChatRequest{Stage: "03-write", Model: "qwen3.5:9b", Messages: userMsg("hi")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindModelMissing {
		t.Fatalf("err = %v, want KindModelMissing", err)
	}
	if !strings.Contains(e.Hint, "ollama pull qwen3.5:9b") || !strings.Contains(e.Hint, "icm pull qwen3.5:9b") {
		t.Errorf("hint %q must name both pull commands", e.Hint)
	}
	if e.Stage != "03-write" || f.shows() != 1 || len(f.chatCalls()) != 0 {
		t.Errorf("stage %q, %d shows, %d chats; want the stage, one show, no chat", e.Stage, f.shows(), len(f.chatCalls()))
	}
}

func TestRetryThenSuccess(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, r *http.Request, req *api.ChatRequest, n int) {
		if n < 2 {
			writeJSON(w, 503, map[string]string{"error": "busy"})
			return
		}
		writeJSON(w, 200, doneChunk("fine", "stop", promptCount(req, nil)))
	}
	clock := newFakeTime()
	o := newTestClient(t, f.srv.URL, clock)
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 3 || resp.Message.Content != "fine" {
		t.Errorf("attempts %d content %q, want 3 and fine", resp.Attempts, resp.Message.Content)
	}
	// Backoff doubles from the base (1s), the lower half of each range with no jitter.
	want := []time.Duration{500 * time.Millisecond, time.Second}
	if got := clock.sleeps(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("sleeps %v, want %v", got, want)
	}
}

func TestRetryBudgetIsHonoured(t *testing.T) {
	cases := []struct {
		name     string
		budget   time.Duration
		attempts int
		header   []string
	}{
		// Delays 0.5, 1, 2, 4, 8, 8 (cap 16s, halved): elapsed after each wait 0.5, 1.5, 3.5, 7.5, 15.5.
		{"budget 4s", 4 * time.Second, 4, nil},
		{"budget 8s", 8 * time.Second, 5, nil},
		{"budget zero: no retry", 0, 1, nil},
		{"Retry-After beyond the budget", 10 * time.Second, 1, []string{"Retry-After", "60"}},
		{"Retry-After within the budget", 10 * time.Second, 3, []string{"Retry-After", "4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.chat = status(503, `{"error":"busy"}`, c.header...)
			clock := newFakeTime()
			o := newTestClient(t, f.srv.URL, clock, WithRetry(c.budget, 100))
			start := clock.Now()
			_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
			if KindOf(err) != KindUnavailable {
				t.Fatalf("err = %v, want KindUnavailable", err)
			}
			if got := len(f.chatCalls()); got != c.attempts {
				t.Errorf("%d attempts, want %d (sleeps %v)", got, c.attempts, clock.sleeps())
			}
			if spent := clock.Now().Sub(start); spent > c.budget {
				t.Errorf("waited %s in all, over the budget of %s", spent, c.budget)
			}
			if len(c.header) > 0 {
				for _, d := range clock.sleeps() {
					if d < 4*time.Second {
						t.Errorf("slept %s, less than the server's Retry-After", d)
					}
				}
			}
		})
	}
}

func TestRetryAfterBeyondBudgetSaysSo(t *testing.T) {
	f := newFake(t)
	f.chat = status(429, `{"error":"slow down"}`, "Retry-After", "120")
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithRetry(30*time.Second, 5))
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	if err == nil || !strings.Contains(err.Error(), "retry after 2 min") {
		t.Errorf("err = %v, want it to say the server asked to retry after 2 min", err)
	}
}

// TestUnreachableServer: nothing has ever answered at the address, so the
// refused connection fails at once (no retry loop), saying there is no
// server there and how to start one.
func TestUnreachableServer(t *testing.T) {
	addr := closedport.Addr(t) // nothing listens there: connection refused
	clock := newFakeTime()
	o := newTestClient(t, "http://"+addr, clock, WithRetry(time.Hour, 4))
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnavailable {
		t.Fatalf("err = %v, want KindUnavailable", err)
	}
	if e.Attempts != 1 || len(clock.sleeps()) != 0 {
		t.Errorf("attempts %d, sleeps %d; want 1 and 0", e.Attempts, len(clock.sleeps()))
	}
	if !strings.Contains(e.Msg, "no model server at http://"+addr) {
		t.Errorf("message %q should say no server is at the address", e.Msg)
	}
	if !strings.Contains(e.Hint, "ollama serve") || !strings.Contains(e.Hint, "icm.ollama.host") || !strings.Contains(e.Hint, addr) {
		t.Errorf("hint %q should say how to start the server, how to point icm elsewhere and where icm looked", e.Hint)
	}
}

// TestServerGoneMidRunFailsAtOnce: a server that answered before and now
// refuses connections has stopped; retrying for ten seconds does not
// start it again, so the call fails at once, saying the server stopped
// answering (not that none was ever there), with how to start it.
// Before, it was retried with backoff (6 attempts over 10 s in the editor).
func TestServerGoneMidRunFailsAtOnce(t *testing.T) {
	f := newFake(t)
	clock := newFakeTime()
	o := newTestClient(t, f.srv.URL, clock, WithRetry(time.Hour, 4))
	if _, err := o.Show(context.Background(), "llama3.2"); err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	_, err := o.Chat(context.Background(), ChatRequest{Model: "llama3.2", Messages: userMsg("hi")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnavailable {
		t.Fatalf("err = %v, want KindUnavailable", err)
	}
	// One attempt for the refusal; a second, at once, when the first went
	// out on the connection the server closed (a reset is worth one more
	// try, and waiting for it would only delay the news).
	if e.Attempts > 2 || len(clock.sleeps()) != 0 {
		t.Errorf("attempts %d, sleeps %d; want at most 2 and none", e.Attempts, len(clock.sleeps()))
	}
	if want := "the model server at " + f.srv.URL + " stopped answering"; e.Error() != want {
		t.Errorf("message %q, want %q (no dial error, no retry count)", e.Error(), want)
	}
	if !e.Unreachable || !strings.Contains(e.Hint, "ollama serve") {
		t.Errorf("unreachable %v, hint %q: want the start hint", e.Unreachable, e.Hint)
	}
	fe := e.Fault()
	if fe.Kind != fault.KindModelUnreachable || len(fe.Actions) == 0 || fe.Actions[0].ID != fault.StartServer {
		t.Errorf("fault %v with actions %v, want model-unreachable offering to start the server first", fe.Kind, fe.Actions)
	}
}

// TestServerKilledDuringACall: the server dies while a call waits for
// its answer (the connection is cut, and nothing listens any more). The
// cut connection is tried again at once, the refusal ends the call, and
// nothing was waited for. Before, the retry waited its backoff first.
func TestServerKilledDuringACall(t *testing.T) {
	f := newFake(t)
	clock := newFakeTime()
	o := newTestClient(t, f.srv.URL, clock, WithRetry(time.Hour, 6))
	if _, err := o.Show(context.Background(), "llama3.2"); err != nil {
		t.Fatal(err)
	}
	f.chat = func(w http.ResponseWriter, _ *http.Request, _ *api.ChatRequest, _ int) {
		f.srv.Listener.Close() // nothing listens from now on
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // the call's connection is cut
		}
	}
	_, err := o.Chat(context.Background(), ChatRequest{Model: "llama3.2", Messages: userMsg("hi")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnavailable || !e.Unreachable {
		t.Fatalf("err = %v, want an unreachable server", err)
	}
	if e.Attempts != 2 || len(clock.sleeps()) != 0 {
		t.Errorf("attempts %d, sleeps %v; want 2 and none", e.Attempts, clock.sleeps())
	}
	if !strings.Contains(e.Error(), "stopped answering") {
		t.Errorf("message %q", e.Error())
	}
}

func TestCallerCancellationStopsRetries(t *testing.T) {
	f := newFake(t)
	f.chat = status(503, `{"error":"busy"}`)
	ctx, cancel := context.WithCancel(context.Background())
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithSleep(func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}))
	_, err := o.Chat(ctx, ChatRequest{Messages: userMsg("hi")})
	if err == nil || len(f.chatCalls()) != 1 {
		t.Fatalf("err %v after %d calls; want a failure after one", err, len(f.chatCalls()))
	}
}
