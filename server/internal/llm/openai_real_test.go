package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// TestOpenAIAgainstRealOllama drives the OpenAI-compatible client against
// the real Ollama server's /v1 endpoint (OpenAI's chat completions API as
// Ollama serves it), so the client is checked against a server we did
// not write, not only against our own fake: plain and streamed answers
// with usage, stop reasons, tool definitions, the model list, and the
// errors a person meets.
func TestOpenAIAgainstRealOllama(t *testing.T) {
	srv := realollama.Start(t, realollama.Options{})
	ctx := context.Background()
	newClient := func(t *testing.T, opts ...Option) *OpenAI {
		t.Helper()
		base := []Option{
			WithBaseURL(srv.URL + "/v1"), WithModel(srv.Model), WithGetenv(func(string) string { return "" }),
			WithContextLength(srv.ContextLength), WithMaxOutput(16), WithStreamTimeouts(2*time.Minute, 30*time.Second),
			WithRetry(30*time.Second, 2),
		}
		o, err := NewOpenAI(append(append([]Option{WithPermit(testPermit)}, base...), opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o := newClient(t)
	seed := func(n int) *int { return &n }

	t.Run("the model list is read", func(t *testing.T) {
		rec := &pathRecorder{base: http.DefaultTransport}
		asked, err := NewOpenAI(WithPermit(testPermit), WithBaseURL(srv.URL+"/v1"), WithModel(srv.Model), WithGetenv(func(string) string { return "" }),
			WithHTTPClient(&http.Client{Transport: rec}))
		if err != nil {
			t.Fatal(err)
		}
		info, err := asked.Show(ctx, srv.Model)
		if err != nil {
			t.Fatal(err)
		}
		// Ollama's /v1/models names the models but gives no window.
		if info.Name != srv.Model || info.ContextLength != 0 {
			t.Errorf("show = %+v", info)
		}
		if got := rec.seen(); !strings.Contains(got, "GET /v1/models 200") {
			t.Errorf("requests: %s", got)
		}
	})

	t.Run("a plain answer carries the usage and the stop reason", func(t *testing.T) {
		resp, err := o.Chat(ctx, ChatRequest{Stage: "01-scope", Messages: userMsg("Say something."), Options: Options{Seed: seed(1)}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.PromptTokens == 0 || resp.OutputTokens == 0 || resp.OutputTokens > 16 {
			t.Errorf("usage %d in, %d out (max_tokens 16)", resp.PromptTokens, resp.OutputTokens)
		}
		if resp.DoneReason != "stop" && resp.DoneReason != "length" {
			t.Errorf("done reason %q", resp.DoneReason)
		}
		if resp.Incomplete != (resp.DoneReason == "length") {
			t.Errorf("incomplete %v for done reason %q", resp.Incomplete, resp.DoneReason)
		}
	})

	t.Run("a streamed answer is the sum of its deltas", func(t *testing.T) {
		var b strings.Builder
		deltas := 0
		resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Tell a story."), Options: Options{Seed: seed(2)},
			OnDelta: func(d Delta) {
				deltas++
				b.WriteString(d.Content)
			}})
		if err != nil {
			t.Fatal(err)
		}
		if deltas < 2 || b.String() != resp.Message.Content {
			t.Errorf("%d deltas joined %q, answer %q", deltas, b.String(), resp.Message.Content)
		}
		if resp.PromptTokens == 0 || resp.OutputTokens == 0 {
			t.Errorf("a streamed answer lost its usage: %d in, %d out", resp.PromptTokens, resp.OutputTokens)
		}
	})

	t.Run("finish_reason length marks the answer incomplete", func(t *testing.T) {
		short := newClient(t, WithMaxOutput(3))
		lengths := 0
		for n := 1; n <= 12; n++ {
			resp, err := short.Chat(ctx, ChatRequest{Messages: userMsg("Go on."), Options: Options{Seed: seed(n)}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.OutputTokens > 3 {
				t.Errorf("seed %d: %d output tokens past max_tokens 3", n, resp.OutputTokens)
			}
			if resp.Incomplete != (resp.DoneReason == "length") {
				t.Errorf("seed %d: finish_reason %q but Incomplete %v", n, resp.DoneReason, resp.Incomplete)
			}
			if resp.Incomplete {
				lengths++
			}
		}
		if lengths == 0 {
			t.Error("with max_tokens 3 no answer stopped for length")
		}
	})

	t.Run("tool definitions are accepted", func(t *testing.T) {
		tools := []Tool{{Name: "lookup", Description: "Look a word up.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`)}}
		if _, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Look it up."), Tools: tools, Options: Options{Seed: seed(4)}}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a missing model is model-missing, with pull as the fix", func(t *testing.T) {
		_, err := o.Chat(ctx, ChatRequest{Stage: "01-scope", Model: "no-such-model:1b", Messages: userMsg("hi")})
		if KindOf(err) != KindModelMissing {
			t.Fatalf("kind %v: %v", KindOf(err), err)
		}
		f := fault.From(err)
		if f.Kind != fault.KindModelMissing || len(f.Actions) == 0 || f.Actions[0].ID != fault.PullModel || f.Actions[0].Model != "no-such-model:1b" {
			t.Errorf("fault %+v", f)
		}
	})

	t.Run("no server behind the address is model-unreachable at once", func(t *testing.T) {
		gone := newClient(t, WithBaseURL("http://127.0.0.1:1/v1"))
		start := time.Now()
		_, err := gone.Chat(ctx, ChatRequest{Messages: userMsg("hi")})
		if f := fault.From(err); f.Kind != fault.KindModelUnreachable {
			t.Fatalf("fault %s: %v", f.Kind, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %s to say so", d)
		}
	})
}

// pathRecorder notes each request's method, path and answer status.
type pathRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	log  []string
}

func (p *pathRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.base.RoundTrip(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.log = append(p.log, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, resp.StatusCode))
	}
	return resp, err
}

func (p *pathRecorder) seen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "; ")
}
