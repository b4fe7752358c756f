package ollamatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/demo/canned"
	"github.com/ollama/ollama/api"
)

// handleChat answers POST /api/chat the way Ollama 0.17 does: the same
// validation and error texts, NDJSON streaming unless "stream" is false,
// and a final chunk with done_reason and the counts.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body) // already buffered by recorded
	if len(strings.TrimSpace(string(body))) == 0 {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	}
	req := &Request{Path: r.URL.Path}
	if err := json.Unmarshal(body, &req.ChatRequest); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	id := recordOf(r.Context())
	s.attachChat(id, req)

	if req.TopLogprobs < 0 || req.TopLogprobs > 20 {
		writeError(w, http.StatusBadRequest, "top_logprobs must be between 0 and 20")
		return
	}
	if strings.TrimSpace(req.Model) == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.Model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if on, _ := req.ThinkRequested(); on && !m.Can("thinking") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}
	if len(req.Tools) > 0 && !m.Can("tools") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s does not support tools", qualifiedName(req.Model)))
		return
	}
	if req.Think != nil && req.Think.IsString() {
		// Only harmony (gpt-oss) models take levels, and no scripted model is one.
		writeError(w, http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", req.Think.String()))
		return
	}
	if len(req.Messages) == 0 {
		// Ollama loads the model and answers at once, streaming or not.
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load",
		})
		return
	}

	if f := string(req.Format); f != "" && f != "null" && f != `""` && f != `"json"` && f[0] != '{' {
		// The runner refuses it before generating anything, so it is a 500.
		writeError(w, http.StatusInternalServerError, fmt.Sprintf(`invalid format: %q; expected "json" or a valid JSON Schema object`, req.Format))
		return
	}

	rep, release, err := s.Respond(r.Context(), req, m)
	switch {
	case errors.Is(err, errUnscripted):
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	case errors.Is(err, errBusy):
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	case err != nil:
		// The client went away or the server is closing: cut the
		// connection rather than complete an empty 200.
		panic(http.ErrAbortHandler)
	}
	defer release()
	s.attachReply(id, rep)

	if rep.Turn.failed() {
		writeError(w, rep.Turn.Status, rep.Turn.Error)
		return
	}
	if req.Streaming() {
		s.writeStream(r.Context(), w, req, rep)
	} else {
		s.writeSingle(r.Context(), w, req, rep)
	}
}

// writeStream sends the answer as NDJSON chunks: thinking, content, tool
// calls, then the done chunk with the counts.
func (s *Server) writeStream(ctx context.Context, w http.ResponseWriter, req *Request, rep *Reply) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v) // api types always encode
		_, _ = w.Write(append(b, '\n'))
		if flusher != nil {
			flusher.Flush()
		}
	}

	evalStart := time.Now()
	if rep.Turn.flooding() {
		c := s.base(req)
		c.Message.Content = rep.Turn.FloodPiece
		b, _ := json.Marshal(c)
		flush := func() {
			if flusher != nil {
				flusher.Flush()
			}
		}
		if !floodStream(ctx, rep.Turn, append(b, '\n'), w, flush) {
			return
		}
		done := s.base(req)
		done.Done, done.DoneReason = true, "stop"
		done.Metrics = metrics(rep, time.Since(evalStart))
		send(done)
		return
	}
	chunks := s.chunks(req, rep)
	if rep.Turn.Drop {
		for _, c := range chunks[:(len(chunks)+1)/2] {
			send(c)
		}
		panic(http.ErrAbortHandler)
	}
	for i, c := range chunks {
		send(c)
		if i == 0 && rep.Turn.Pause != nil {
			select {
			case <-rep.Turn.Pause:
			case <-ctx.Done():
				return
			}
		}
	}
	if rep.Turn.StreamError {
		send(map[string]string{"error": rep.Turn.Error})
		return
	}
	done := s.base(req)
	done.Done = true
	done.DoneReason = rep.Turn.DoneReason
	done.Metrics = metrics(rep, time.Since(evalStart))
	send(withCached(done, rep.Turn.Cached))
}

// doneCached is a done chunk with the count of reused prompt tokens that
// newer servers add (v0.17's types have no field for it).
type doneCached struct {
	api.ChatResponse
	PromptEvalCachedCount int `json:"prompt_eval_cached_count"`
}

// withCached adds the count when the turn reports one.
func withCached(done api.ChatResponse, n *int) any {
	if n == nil {
		return done
	}
	return doneCached{ChatResponse: done, PromptEvalCachedCount: *n}
}

// writeSingle sends the whole answer as one JSON object, as Ollama does
// when "stream" is false.
func (s *Server) writeSingle(ctx context.Context, w http.ResponseWriter, req *Request, rep *Reply) {
	if rep.Turn.StreamError {
		writeError(w, http.StatusInternalServerError, rep.Turn.Error)
		return
	}
	evalStart := time.Now()
	resp := s.base(req)
	if rep.Turn.flooding() {
		const marker = "\x00flood\x00"
		resp.Message.Content = marker
		resp.Done, resp.DoneReason = true, "stop"
		resp.Metrics = metrics(rep, time.Since(evalStart))
		head, tail := splitAround(resp, marker)
		floodSingle(ctx, w, rep.Turn, head, tail)
		return
	}
	resp.Message.Content = rep.Turn.Content
	resp.Message.Thinking = rep.Turn.Thinking
	resp.Message.ToolCalls = s.toolCalls(rep.Turn.ToolCalls)
	resp.Done = true
	resp.DoneReason = rep.Turn.DoneReason
	resp.Metrics = metrics(rep, time.Since(evalStart))
	b, _ := json.Marshal(withCached(resp, rep.Turn.Cached))
	if rep.Turn.Drop {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// base is the skeleton every chat chunk shares.
func (s *Server) base(req *Request) api.ChatResponse {
	return api.ChatResponse{
		Model:     req.Model,
		CreatedAt: time.Now().UTC(),
		Message:   api.Message{Role: "assistant"},
	}
}

// chunks splits an answer into the chunks a stream sends before its done
// chunk: thinking and content a word at a time (as tokens arrive), then
// the tool calls together in one chunk, as Ollama's tool parser emits them.
func (s *Server) chunks(req *Request, rep *Reply) []api.ChatResponse {
	var out []api.ChatResponse
	for _, p := range canned.Pieces(rep.Turn.Thinking) {
		c := s.base(req)
		c.Message.Thinking = p
		out = append(out, c)
	}
	for _, p := range canned.Pieces(rep.Turn.Content) {
		c := s.base(req)
		c.Message.Content = p
		out = append(out, c)
	}
	if len(rep.Turn.ToolCalls) > 0 {
		c := s.base(req)
		c.Message.ToolCalls = s.toolCalls(rep.Turn.ToolCalls)
		out = append(out, c)
	}
	return out
}

// toolCalls converts scripted calls to Ollama's shape, with the engine's
// predictable ids.
func (s *Server) toolCalls(calls []ToolCall) []api.ToolCall {
	return canned.WireToolCalls(calls, s.nextToolCallID)
}

// metrics fills the done chunk's counts and durations. Durations are real
// (queue wait as load time, the slot's latency as prompt evaluation,
// writing as evaluation) and never zero, since Ollama always reports them.
func metrics(rep *Reply, eval time.Duration) api.Metrics {
	atLeast := func(d time.Duration) time.Duration { return max(d, time.Microsecond) }
	return api.Metrics{
		TotalDuration:      atLeast(time.Since(rep.Received)),
		LoadDuration:       atLeast(rep.Queued),
		PromptEvalCount:    rep.PromptEvalCount,
		PromptEvalDuration: atLeast(rep.Working),
		EvalCount:          rep.EvalCount,
		EvalDuration:       atLeast(eval),
	}
}

// writeJSON answers with v as JSON, the content type gin gives it.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"ollamatest: cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers with Ollama's error shape, {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
