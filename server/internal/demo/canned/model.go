package canned

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// maxBody bounds a request body; the demo's prompts are a few KiB.
const maxBody = 16 << 20

// Model is the canned model server: Ollama's API (/api/version,
// /api/show, /api/chat) answering every chat call from a Script.
type Model struct {
	*server
	script *Script
	slots  chan struct{}

	mu    sync.Mutex
	hits  []int // answers given, per rule
	calls int
	ids   int // tool calls made, for their ids
}

// StartModel serves script on a free port of 127.0.0.1; Close stops it.
func StartModel(script *Script) (*Model, error) {
	m := &Model{script: script, slots: make(chan struct{}, max(script.Slots, 1)), hits: make([]int, len(script.Rules))}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.0.0-icm-demo"})
	})
	mux.HandleFunc("POST /api/show", m.show)
	mux.HandleFunc("POST /api/chat", m.chat)
	s, err := listen("model server", mux)
	if err != nil {
		return nil, err
	}
	m.server = s
	return m, nil
}

// Calls counts the chat calls the server answered.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// show describes a model with the model_info keys clients read:
// general.architecture and <architecture>.context_length.
func (m *Model) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	spec, ok := m.script.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	caps := make([]model.Capability, len(spec.Capabilities))
	for i, c := range spec.Capabilities {
		caps[i] = model.Capability(c)
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Details:      api.ModelDetails{Format: "gguf", Family: spec.Family, Families: []string{spec.Family}},
		ModelInfo:    map[string]any{"general.architecture": spec.Family, spec.Family + ".context_length": spec.ContextLength},
		Capabilities: caps,
	})
}

// chat answers one /api/chat call with the script's answer, after
// waiting for a slot and the latency, streamed unless "stream" is false.
func (m *Model) chat(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	var req api.ChatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	spec, ok := m.script.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	answer, ok := m.pick(&req)
	if !ok {
		writeError(w, http.StatusInternalServerError, "icm demo has no canned answer for this call (its script has no rule for it and no default)")
		return
	}
	ctx := r.Context()
	select {
	case m.slots <- struct{}{}:
		defer func() { <-m.slots }()
	case <-ctx.Done():
		abort()
	}
	queued := time.Since(received)
	if !pause(ctx, time.Duration(m.script.Latency)) {
		abort()
	}
	a := reply{req: &req, answer: answer, calls: m.toolCalls(answer.ToolCalls), received: received, queued: queued,
		working: time.Since(received) - queued, window: window(&req, spec)}
	a.write(w)
}

// pick returns the answer of the first rule that holds for the call,
// else the default, and counts the call.
func (m *Model) pick(req *api.ChatRequest) (Answer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.script.Rules {
		if r.When.holds(req) {
			a := r.Reply[min(m.hits[i], len(r.Reply)-1)]
			m.hits[i]++
			m.calls++
			return a, true
		}
	}
	if m.script.Default == nil {
		return Answer{}, false
	}
	m.calls++
	return *m.script.Default, true
}

// toolCalls converts an answer's calls to Ollama's shape, numbering
// their ids across the server's life.
func (m *Model) toolCalls(calls []ToolCall) []api.ToolCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return WireToolCalls(calls, func() int { m.ids++; return m.ids })
}

// abort ends a call the server gave up on (it closed, or the caller
// left) without an answer: a handler that merely returned would have the
// HTTP server send an empty 200, which a client takes for a reply.
func abort() { panic(http.ErrAbortHandler) }

// pause waits d, or until ctx ends (then it reports false).
func pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// window is the context window a call runs with: its num_ctx (4096, as
// Ollama's default, when it sends none), at most the model's length.
func window(req *api.ChatRequest, spec ModelSpec) int {
	n := 4096
	if v, ok := req.Options["num_ctx"].(float64); ok && v > 0 {
		n = int(v)
	}
	return min(n, spec.ContextLength)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"unable to encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers with Ollama's error shape, {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
