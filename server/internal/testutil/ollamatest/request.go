package ollamatest

import (
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"
)

// Request is one chat call as the script engine sees it, whichever HTTP API
// carried it: an Ollama /api/chat body, or another front translated into the
// same shape. Matchers and reply functions read it; nothing changes it after
// it is decoded, so it is safe to keep and share.
type Request struct {
	api.ChatRequest
	// Path is the HTTP path that carried the call, e.g. "/api/chat".
	Path string
	// Seq numbers chat calls from 1 in the order they arrived.
	Seq int
	// Window is the context window a front imposes when the call names
	// none (the OpenAI front: the model's whole context length, as vLLM
	// fixes it at start-up). Zero means Config.DefaultNumCtx.
	Window int
}

// LastUser returns the content of the last user message, or "" when there is none.
func (r *Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// System returns the contents of all system messages joined by a newline.
func (r *Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResults returns the tool-result messages (role "tool") in order.
func (r *Request) ToolResults() []api.Message {
	var out []api.Message
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// ToolNames returns the names of the tools the request offers, in order.
func (r *Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// Streaming reports whether the client asked for a stream; Ollama streams
// unless "stream" is false.
func (r *Request) Streaming() bool {
	return r.Stream == nil || *r.Stream
}

// NumCtx returns options.num_ctx, or 0 when the request does not set it.
func (r *Request) NumCtx() int {
	n, _ := r.IntOption("num_ctx")
	return n
}

// IntOption returns a numeric entry of options as an int. JSON numbers
// decode as float64, so tests would otherwise have to convert every time.
func (r *Request) IntOption(name string) (int, bool) {
	v, ok := r.Options[name]
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// ThinkRequested reports whether the request sets think to a true value;
// set tells whether it sets think at all.
func (r *Request) ThinkRequested() (on, set bool) {
	if r.Think == nil {
		return false, false
	}
	return r.Think.Bool(), true
}
