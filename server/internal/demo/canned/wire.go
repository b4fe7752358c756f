package canned

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
)

// reply is one call's answer on its way out, with what its final chunk
// reports.
type reply struct {
	req    *api.ChatRequest
	answer Answer
	calls  []api.ToolCall
	// received is when the call arrived; queued how long it waited for
	// a slot and working how long it spent in it before answering.
	received        time.Time
	queued, working time.Duration
	window          int
}

// write sends the answer: as Ollama streams it (NDJSON, the content a
// word at a time, the tool calls in one chunk, then the done chunk with
// the counts), or as one object when the call asked for no stream.
func (a *reply) write(w http.ResponseWriter) {
	start := time.Now()
	chunk := func() api.ChatResponse {
		return api.ChatResponse{Model: a.req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant"}}
	}
	done := func() api.ChatResponse {
		c := chunk()
		c.Done, c.DoneReason = true, "stop"
		c.Metrics = a.metrics(time.Since(start))
		return c
	}
	if a.req.Stream != nil && !*a.req.Stream {
		c := done()
		c.Message.Content, c.Message.ToolCalls = a.answer.Content, a.calls
		writeJSON(w, http.StatusOK, c)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(c api.ChatResponse) {
		_ = json.NewEncoder(w).Encode(c)
		_ = rc.Flush()
	}
	for _, p := range Pieces(a.answer.Content) {
		c := chunk()
		c.Message.Content = p
		send(c)
	}
	if len(a.calls) > 0 {
		c := chunk()
		c.Message.ToolCalls = a.calls
		send(c)
	}
	send(done())
}

// metrics are the final chunk's counts and durations. The prompt is
// counted as the scripted test server counts it (a quarter of the bytes
// of PromptText) and, like Ollama, never beyond the window; durations
// are the real ones, never zero, since Ollama always reports them.
func (a *reply) metrics(eval time.Duration) api.Metrics {
	atLeast := func(d time.Duration) time.Duration { return max(d, time.Microsecond) }
	out := quarter(a.answer.Content)
	for _, c := range a.answer.ToolCalls {
		args, _ := json.Marshal(c.Arguments)
		out += quarter(c.Name + string(args))
	}
	return api.Metrics{
		TotalDuration:      atLeast(time.Since(a.received)),
		LoadDuration:       atLeast(a.queued),
		PromptEvalCount:    min(quarter(PromptText(a.req)), a.window),
		PromptEvalDuration: atLeast(a.working),
		EvalCount:          max(out, 1),
		EvalDuration:       atLeast(eval),
	}
}

// quarter counts a text's tokens as one per four bytes, rounded up.
func quarter(text string) int { return (len(text) + 3) / 4 }

// PromptText is the text whose token count stands for a call's prompt:
// each message's role, content, thinking and tool calls, then the offered
// tools and the format, as JSON. A real server counts its rendered
// template; this is a documented, deterministic stand-in for it.
func PromptText(req *api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		if m.Thinking != "" {
			b.WriteByte('\n')
			b.WriteString(m.Thinking)
		}
		for _, c := range m.ToolCalls {
			b.WriteByte('\n')
			b.WriteString(c.Function.Name)
			b.WriteString(c.Function.Arguments.String())
		}
		b.WriteByte('\n')
	}
	if len(req.Tools) > 0 {
		b.WriteString(req.Tools.String())
	}
	b.Write(req.Format)
	return b.String()
}

// Pieces cuts text before each run of spaces that follows a word, so
// "Hello big world" streams as "Hello", " big", " world", as a model's
// tokens arrive.
func Pieces(text string) []string {
	var out []string
	start := 0
	prevSpace := true
	for i, r := range text {
		space := unicode.IsSpace(r)
		if space && !prevSpace && i > start {
			out = append(out, text[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// WireToolCalls converts scripted calls to Ollama's shape, ids
// "call_00000001" onward from next, arguments in key order so the
// encoding is stable.
func WireToolCalls(calls []ToolCall, next func() int) []api.ToolCall {
	var out []api.ToolCall
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		for _, k := range slices.Sorted(maps.Keys(c.Arguments)) {
			args.Set(k, c.Arguments[k])
		}
		out = append(out, api.ToolCall{
			ID:       fmt.Sprintf("call_%08d", next()),
			Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args},
		})
	}
	return out
}
