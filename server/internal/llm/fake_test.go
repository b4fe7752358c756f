package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// fake is a hand-written Ollama endpoint for protocol cases the scripted
// server does not reach (status codes, broken streams, exact bodies).
type fake struct {
	t  *testing.T
	mu sync.Mutex
	// show answers /api/show; nil answers a default llama model.
	show func(w http.ResponseWriter, model string)
	// chat answers the n-th /api/chat call (0-based).
	chat func(w http.ResponseWriter, r *http.Request, req *api.ChatRequest, n int)
	// pull answers /api/pull.
	pull func(w http.ResponseWriter, req *api.PullRequest)
	// count is the server's tokenizer for the default chat answer (bytes when nil).
	count func(string) int

	showCalls int
	chats     []api.ChatRequest
	rawChats  [][]byte
	srv       *httptest.Server
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch r.URL.Path {
	case "/api/show":
		var req api.ShowRequest
		_ = json.Unmarshal(body, &req)
		f.mu.Lock()
		f.showCalls++
		show := f.show
		f.mu.Unlock()
		if show == nil {
			writeJSON(w, 200, showResponse("llama", 32768, 128256, 4096))
			return
		}
		show(w, req.Model)
	case "/api/chat":
		var req api.ChatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			f.t.Errorf("chat body is not an api.ChatRequest: %v", err)
		}
		f.mu.Lock()
		n := len(f.chats)
		f.chats = append(f.chats, req)
		f.rawChats = append(f.rawChats, body)
		chat := f.chat
		f.mu.Unlock()
		if chat == nil {
			writeJSON(w, 200, doneChunk("ok", "stop", promptCount(&req, f.count)))
			return
		}
		chat(w, r, &req, n)
	case "/api/pull":
		var req api.PullRequest
		_ = json.Unmarshal(body, &req)
		f.pull(w, &req)
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) chatCalls() []api.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.ChatRequest(nil), f.chats...)
}

func (f *fake) shows() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.showCalls
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeLine writes one NDJSON line and flushes it to the client.
func writeLine(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
	w.(http.Flusher).Flush()
}

func showResponse(arch string, ctxLen, vocab, embed int) map[string]any {
	return map[string]any{
		"details": map[string]any{"family": arch, "format": "gguf"},
		"model_info": map[string]any{
			"general.architecture":      arch,
			arch + ".context_length":    ctxLen,
			arch + ".embedding_length":  embed,
			"tokenizer.ggml.model":      "gpt2",
			"tokenizer.ggml.tokens":     []any{},
			"general.parameter_count":   1000,
			"general.file_type":         1,
			"general.quantization_vers": 2,
		},
		"tensors":      []map[string]any{{"name": "token_embd.weight", "type": "F32", "shape": []int{embed, vocab}}},
		"capabilities": []string{"completion", "tools"},
	}
}

func doneChunk(content, reason string, promptEval int) map[string]any {
	return map[string]any{
		"model":             "tiny",
		"message":           map[string]any{"role": "assistant", "content": content},
		"done":              true,
		"done_reason":       reason,
		"prompt_eval_count": promptEval,
		"eval_count":        3,
		"total_duration":    1000,
	}
}

func deltaChunk(content string) map[string]any {
	return map[string]any{"model": "tiny", "message": map[string]any{"role": "assistant", "content": content}, "done": false}
}

// fakeTime is a clock that only moves when the client sleeps.
type fakeTime struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeTime() *fakeTime { return &fakeTime{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeTime) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeTime) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeTime) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// newTestClient returns a client for url with a fake clock, no jitter
// (each delay is the lower half of its range) and a 1s first retry delay.
func newTestClient(t *testing.T, url string, clock *fakeTime, opts ...OllamaOption) *Ollama {
	t.Helper()
	base := []OllamaOption{
		WithBaseURL(url),
		WithModel("tiny"),
		WithGetenv(func(string) string { return "" }),
		WithSleep(clock.Sleep),
		WithClock(clock.Now),
		WithJitter(func(time.Duration) time.Duration { return 0 }),
		WithBackoff(time.Second, 16*time.Second),
		WithRetry(time.Hour, 6),
	}
	o, err := NewOllama(append(append([]Option{WithPermit(testPermit)}, base...), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func userMsg(s string) []Message { return []Message{{Role: RoleUser, Content: s}} }

func numOpt(opts map[string]any, key string) int {
	switch v := opts[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	panic(fmt.Sprintf("option %s is %T", key, opts[key]))
}

// mustRoundTrip encodes v as JSON and decodes it into out.
func mustRoundTrip(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// promptCount is what the server would evaluate: every message's role
// and content plus a few marker tokens, cut at the window as Ollama cuts
// a prompt that does not fit. count is the tokenizer (bytes when nil).
func promptCount(req *api.ChatRequest, count func(string) int) int {
	if count == nil {
		count = func(s string) int { return len(s) }
	}
	n := 4
	for _, m := range req.Messages {
		n += 4 + count(m.Role) + count(m.Content)
	}
	if len(req.Tools) > 0 {
		n += count(req.Tools.String())
	}
	if w, ok := req.Options["num_ctx"].(float64); ok && n > int(w) {
		n = int(w)
	}
	return n
}
