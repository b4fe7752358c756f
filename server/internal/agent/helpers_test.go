package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// newServer is a scripted Ollama serving one small model.
func newServer(t testing.TB) *ollamatest.Server {
	t.Helper()
	return ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
}

// newClient is the real Ollama client pointed at srv. A failed call is not
// retried, so error cases answer at once.
func newClient(t testing.TB, srv *ollamatest.Server) *llm.Ollama {
	t.Helper()
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")),
		llm.WithBaseURL(srv.URL()),
		llm.WithModel("tiny"),
		llm.WithGetenv(func(string) string { return "" }),
		llm.WithRetry(time.Minute, 1),
	)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakeTools offers a search and a fetch tool and checks their required
// arguments the way a tool session does.
type fakeTools struct {
	mu    sync.Mutex
	calls []fakeCall
	// answer computes the result of a valid call (default: echo the arguments).
	answer func(name string, args map[string]any) (ToolResult, error)
}

type fakeCall struct {
	Name string
	Args map[string]any
}

var fakeRequired = map[string]string{"search_search": "query", "browser_fetch": "url"}

func (f *fakeTools) Tools() []llm.Tool {
	return []llm.Tool{
		{Name: "search_search", Description: "Search the web.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
		{Name: "browser_fetch", Description: "Read a page.", Parameters: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`)},
	}
}

func (f *fakeTools) Call(_ context.Context, name string, args map[string]any) (ToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{name, args})
	f.mu.Unlock()
	arg, known := fakeRequired[name]
	if !known {
		return ToolResult{Text: fmt.Sprintf("unknown tool %q; the tools are search_search and browser_fetch", name), IsError: true}, nil
	}
	server, tool, _ := strings.Cut(name, "_")
	if _, ok := args[arg].(string); !ok {
		return ToolResult{Text: fmt.Sprintf("invalid arguments for %s: argument %q is required and must be a string", name, arg), IsError: true, Server: server, Tool: tool}, nil
	}
	if f.answer != nil {
		res, err := f.answer(name, args)
		res.Server, res.Tool = server, tool
		return res, err
	}
	b, _ := json.Marshal(args)
	return ToolResult{Text: "result of " + name + " " + string(b), Server: server, Tool: tool}, nil
}

func (f *fakeTools) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func userTask(s string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a careful researcher."},
		{Role: llm.RoleUser, Content: s},
	}
}

func search(q string) ollamatest.ToolCall {
	return ollamatest.Call("search_search", map[string]any{"query": q})
}

// recorder keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) observe(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// kinds lists the event kinds, deltas left out.
func (r *recorder) kinds() []string {
	var out []string
	for _, e := range r.events {
		if e.Kind != EventDelta {
			out = append(out, e.Kind)
		}
	}
	return out
}

func (r *recorder) of(kind string) []Event {
	var out []Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// nth returns the i-th event of kind, failing the test when there is none.
func (r *recorder) nth(t *testing.T, kind string, i int) Event {
	t.Helper()
	evs := r.of(kind)
	if i < 0 {
		i += len(evs)
	}
	if i < 0 || i >= len(evs) {
		t.Fatalf("no %s event number %d among %v", kind, i, r.kinds())
	}
	return evs[i]
}
