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
)

// handleOpenAIChat answers POST /v1/chat/completions the way vLLM's
// OpenAI-compatible server does: the same error shapes, server-sent
// events when "stream" is true (content a word at a time, tool calls
// with their arguments in pieces, the finish reason, the usage chunk when
// stream_options.include_usage asks for it, then [DONE]), one
// chat.completion object otherwise. The window is the model's whole
// context length, as such a server fixes it at start-up: a prompt plus
// max_tokens beyond it is refused with 400, never cut.
func (s *Server) handleOpenAIChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body) // already buffered by recorded
	var oreq oaRequest
	if err := json.Unmarshal(body, &oreq); err != nil {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", fmt.Sprintf("unable to read the request: %v", err))
		return
	}
	cr, err := oreq.toChatRequest()
	if err != nil {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	req := &Request{ChatRequest: cr, Path: r.URL.Path}
	id := recordOf(r.Context())
	s.attachChat(id, req)

	if strings.TrimSpace(req.Model) == "" {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", "the model field is required")
		return
	}
	m, ok := s.Model(req.Model)
	if !ok {
		writeOAError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	if len(req.Messages) == 0 {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", "messages must hold at least one message")
		return
	}
	if len(req.Tools) > 0 && !m.Can("tools") {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`)
		return
	}
	req.Window = m.ContextLength
	prompt := s.PromptTokens(req)
	completion, _ := req.IntOption("num_predict")
	if prompt+completion > m.ContextLength {
		writeOAError(w, http.StatusBadRequest, "BadRequestError", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			m.ContextLength, prompt+completion, prompt, completion))
		return
	}

	rep, release, err := s.Respond(r.Context(), req, m)
	switch {
	case errors.Is(err, errUnscripted):
		writeOAError(w, http.StatusInternalServerError, "InternalServerError", err.Error())
		return
	case errors.Is(err, errBusy):
		writeOAError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", err.Error())
		return
	case err != nil:
		panic(http.ErrAbortHandler) // the client went away or the server is closing
	}
	defer release()
	s.attachReply(id, rep)

	if rep.Turn.failed() {
		writeOAError(w, rep.Turn.Status, http.StatusText(rep.Turn.Status), rep.Turn.Error)
		return
	}
	completionID := fmt.Sprintf("chatcmpl-%08d", req.Seq)
	if oreq.Stream {
		usage := oreq.StreamOptions != nil && oreq.StreamOptions.IncludeUsage
		s.writeOAStream(r.Context(), w, req, rep, completionID, usage)
	} else {
		s.writeOASingle(r.Context(), w, req, rep, completionID)
	}
}

// oaCall is a scripted tool call in the OpenAI shape.
func (s *Server) oaCalls(calls []ToolCall) []oaToolCall {
	var out []oaToolCall
	for i, c := range s.toolCalls(calls) {
		args, _ := json.Marshal(c.Function.Arguments)
		tc := oaToolCall{Index: &i, ID: c.ID, Type: "function"}
		tc.Function.Name = c.Function.Name
		tc.Function.Arguments = string(args)
		out = append(out, tc)
	}
	return out
}

// finishReason is the OpenAI stop reason of a reply.
func finishReason(rep *Reply) string {
	switch {
	case rep.Turn.DoneReason == "length":
		return "length"
	case len(rep.Turn.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func oaUsage(rep *Reply) map[string]any {
	u := map[string]any{"prompt_tokens": rep.PromptEvalCount, "completion_tokens": rep.EvalCount, "total_tokens": rep.PromptEvalCount + rep.EvalCount}
	if n := rep.Turn.Cached; n != nil {
		u["prompt_tokens_details"] = map[string]int{"cached_tokens": *n}
	}
	return u
}

// writeOASingle sends the whole answer as one chat.completion object.
func (s *Server) writeOASingle(ctx context.Context, w http.ResponseWriter, req *Request, rep *Reply, id string) {
	if rep.Turn.StreamError {
		writeOAError(w, http.StatusInternalServerError, "InternalServerError", rep.Turn.Error)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.Turn.Content}
	if rep.Turn.flooding() {
		const marker = "\x00flood\x00"
		msg["content"] = marker
		head, tail := splitAround(map[string]any{
			"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		}, marker)
		floodSingle(ctx, w, rep.Turn, head, tail)
		return
	}
	if rep.Turn.Thinking != "" {
		msg["reasoning_content"] = rep.Turn.Thinking
	}
	if len(rep.Turn.ToolCalls) > 0 {
		msg["tool_calls"] = s.oaCalls(rep.Turn.ToolCalls)
		if rep.Turn.Content == "" {
			msg["content"] = nil
		}
	}
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(rep)}},
		"usage":   oaUsage(rep),
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if rep.Turn.Drop {
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	_, _ = w.Write(b)
}

// writeOAStream sends the answer as server-sent events.
func (s *Server) writeOAStream(ctx context.Context, w http.ResponseWriter, req *Request, rep *Reply, id string, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	send := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	if rep.Turn.flooding() {
		b, _ := json.Marshal(chunk(map[string]any{"content": rep.Turn.FloodPiece}, nil))
		flush := func() {
			if flusher != nil {
				flusher.Flush()
			}
		}
		if !floodStream(ctx, rep.Turn, []byte("data: "+string(b)+"\n\n"), w, flush) {
			return
		}
		send(chunk(map[string]any{}, "stop"))
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		flush()
		return
	}
	var chunks []map[string]any
	chunks = append(chunks, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range canned.Pieces(rep.Turn.Thinking) {
		chunks = append(chunks, chunk(map[string]any{"reasoning_content": p}, nil))
	}
	for _, p := range canned.Pieces(rep.Turn.Content) {
		chunks = append(chunks, chunk(map[string]any{"content": p}, nil))
	}
	for _, c := range s.oaCalls(rep.Turn.ToolCalls) {
		// The name first with no arguments, then the arguments in two
		// pieces, as servers stream them while the model writes.
		args := c.Function.Arguments
		head := map[string]any{"index": *c.Index, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Function.Name, "arguments": ""}}
		chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{head}}, nil))
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			piece := map[string]any{"index": *c.Index, "function": map[string]any{"arguments": part}}
			chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{piece}}, nil))
		}
	}
	if rep.Turn.Drop {
		for _, c := range chunks[:(len(chunks)+1)/2] {
			send(c)
		}
		panic(http.ErrAbortHandler)
	}
	for _, c := range chunks {
		send(c)
	}
	if rep.Turn.StreamError {
		send(map[string]any{"error": map[string]any{"message": rep.Turn.Error, "type": "InternalServerError", "code": 500}})
		return
	}
	send(chunk(map[string]any{}, finishReason(rep)))
	if includeUsage {
		send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{}, "usage": oaUsage(rep)})
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// handleOpenAIModels lists the installed models with their windows under
// vLLM's name for it, max_model_len.
func (s *Server) handleOpenAIModels(w http.ResponseWriter, _ *http.Request) {
	data := []any{}
	for _, m := range s.Models() {
		data = append(data, map[string]any{"id": m.Name, "object": "model", "created": s.started.Unix(), "owned_by": "ollamatest", "max_model_len": m.ContextLength})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// writeOAError answers with the OpenAI error shape.
func writeOAError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": status}})
}
