package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// The OpenAI chat completions wire format, as much of it as icm uses. The
// types are icm's own rather than an SDK's: the call goes through the same
// transport, retry policy and error sorting as the Ollama client, which an
// SDK with its own retries and error types would bypass.

type oaRequest struct {
	Model         string           `json:"model"`
	Messages      []oaMessage      `json:"messages"`
	Tools         []oaTool         `json:"tools,omitempty"`
	Stream        bool             `json:"stream"`
	StreamOptions *oaStreamOptions `json:"stream_options,omitempty"`
	MaxTokens     int              `json:"max_tokens,omitempty"`
	Temperature   *float64         `json:"temperature,omitempty"`
	TopP          *float64         `json:"top_p,omitempty"`
	// TopK is not in OpenAI's API; vLLM, llama-server and LM Studio take it.
	TopK           int               `json:"top_k,omitempty"`
	Seed           *int              `json:"seed,omitempty"`
	Stop           []string          `json:"stop,omitempty"`
	ResponseFormat *oaResponseFormat `json:"response_format,omitempty"`
	// ChatTemplateKwargs carries enable_thinking to servers that render the
	// model's own chat template (vLLM, llama-server); sent only when the
	// request sets Think.
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
}

type oaStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type oaMessage struct {
	Role       string       `json:"role"`
	Content    string       `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type oaToolCall struct {
	// Index places a streamed piece of a tool call among the answer's calls.
	Index    *int           `json:"index,omitempty"`
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function oaCallFunction `json:"function"`
}

type oaCallFunction struct {
	Name string `json:"name,omitempty"`
	// Arguments is a JSON object encoded as a string; streamed in pieces.
	Arguments string `json:"arguments"`
}

type oaResponseFormat struct {
	Type       string        `json:"type"`
	JSONSchema *oaJSONSchema `json:"json_schema,omitempty"`
}

type oaJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// oaAnswer is a whole answer (choices[].message) or a stream chunk
// (choices[].delta), plus the error shapes servers put in a stream.
type oaAnswer struct {
	Model   string     `json:"model"`
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage"`
	// Timings are llama-server's own figures, in milliseconds.
	Timings *oaTimings `json:"timings"`
	// Error is {"error": {...}} (OpenAI, llama-server); vLLM sends
	// {"object": "error", "message": ...} instead.
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

type oaChoice struct {
	Message      *oaAnswerMessage `json:"message"`
	Delta        *oaAnswerMessage `json:"delta"`
	FinishReason *string          `json:"finish_reason"`
}

type oaAnswerMessage struct {
	Content *string `json:"content"`
	// Reasoning text: reasoning_content (vLLM, llama-server, DeepSeek) or
	// reasoning (newer vLLM, LM Studio, gateways).
	ReasoningContent string       `json:"reasoning_content"`
	Reasoning        string       `json:"reasoning"`
	ToolCalls        []oaToolCall `json:"tool_calls"`
}

type oaUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// PromptTokensDetails.CachedTokens is how many of the prompt tokens
	// the server reused (vLLM with prompt token details on, gateways).
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type oaTimings struct {
	PromptMS    float64 `json:"prompt_ms"`
	PredictedMS float64 `json:"predicted_ms"`
	// CacheN is llama-server's count of the prompt tokens it reused.
	CacheN *int `json:"cache_n"`
}

// cachedTokens is the server's count of reused prompt tokens, when it gives one.
func cachedTokens(u oaUsage, t *oaTimings) *int {
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		return d.CachedTokens
	}
	if t != nil {
		return t.CacheN
	}
	return nil
}

// streamError returns the error a stream chunk carries, or "".
func (a *oaAnswer) streamError() string {
	if len(a.Error) > 0 && !bytes.Equal(bytes.TrimSpace(a.Error), []byte("null")) {
		msg, _ := serverAnswer([]byte(`{"error":` + string(a.Error) + `}`))
		return msg
	}
	if a.Object == "error" {
		if a.Message != "" {
			return a.Message
		}
		return "unspecified error"
	}
	return ""
}

// toOATools converts the offered tools. The whole JSON Schema goes as
// written: OpenAI-compatible servers take JSON Schema as it is.
func toOATools(tools []Tool) ([]oaTool, error) {
	var out []oaTool
	for _, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("a tool has no name")
		}
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 || bytes.Equal(params, []byte("null")) {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		if params[0] != '{' || !json.Valid(params) {
			return nil, fmt.Errorf("tool %s: its parameters are not a JSON Schema object", t.Name)
		}
		out = append(out, oaTool{Type: "function", Function: oaFunction{Name: t.Name, Description: t.Description, Parameters: json.RawMessage(params)}})
	}
	return out, nil
}

// toOAMessages converts the chat history. Past reasoning is not sent back
// (chat templates drop it), and tool-call arguments are encoded with
// sorted keys so the same history is the same bytes every time.
func toOAMessages(msgs []Message) ([]oaMessage, error) {
	out := make([]oaMessage, len(msgs))
	for i, m := range msgs {
		om := oaMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			args, err := sortedJSON(tc.Arguments)
			if err != nil {
				return nil, fmt.Errorf("tool call %s: unable to encode its arguments: %w", tc.Name, err)
			}
			om.ToolCalls = append(om.ToolCalls, oaToolCall{ID: tc.ID, Type: "function", Function: oaCallFunction{Name: tc.Name, Arguments: args}})
		}
		out[i] = om
	}
	return out, nil
}

// sortedJSON encodes a map with its keys in order (encoding/json sorts
// map keys, nested ones included).
func sortedJSON(m map[string]any) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// toOAFormat converts "json" or a JSON Schema to response_format.
func toOAFormat(format json.RawMessage) (*oaResponseFormat, error) {
	f, err := normaliseFormat(format)
	if err != nil || f == nil {
		return nil, err
	}
	if string(f) == `"json"` {
		return &oaResponseFormat{Type: "json_object"}, nil
	}
	return &oaResponseFormat{Type: "json_schema", JSONSchema: &oaJSONSchema{Name: "output", Schema: f}}, nil
}

// toolCallParts gathers the pieces of streamed tool calls by index.
type toolCallParts struct {
	order []int
	calls map[int]*oaToolCall
}

func (p *toolCallParts) add(tc oaToolCall) {
	if p.calls == nil {
		p.calls = map[int]*oaToolCall{}
	}
	idx := len(p.order)
	if tc.Index != nil {
		idx = *tc.Index
	} else if tc.ID == "" && len(p.order) > 0 {
		// No index and no id: a continuation of the last call.
		idx = p.order[len(p.order)-1]
	}
	cur, ok := p.calls[idx]
	if !ok {
		cur = &oaToolCall{}
		p.calls[idx] = cur
		p.order = append(p.order, idx)
	}
	if tc.ID != "" {
		cur.ID = tc.ID
	}
	if tc.Function.Name != "" {
		cur.Function.Name += tc.Function.Name
	}
	cur.Function.Arguments += tc.Function.Arguments
}

func (p *toolCallParts) list() []oaToolCall {
	idx := append([]int(nil), p.order...)
	sort.Ints(idx)
	out := make([]oaToolCall, 0, len(idx))
	for _, i := range idx {
		out = append(out, *p.calls[i])
	}
	return out
}

// fromOAToolCalls decodes the model's tool calls; newID names a call the
// server sent without an id. Arguments that are not a JSON object make
// an error: the call cannot be run as the model meant it.
func fromOAToolCalls(calls []oaToolCall, newID func() string) ([]ToolCall, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	out := make([]ToolCall, 0, len(calls))
	for _, c := range calls {
		if c.Function.Name == "" {
			return nil, fmt.Errorf("a tool call has no function name")
		}
		args := map[string]any{}
		if raw := bytes.TrimSpace([]byte(c.Function.Arguments)); len(raw) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, fmt.Errorf("the arguments of tool call %s are not a JSON object (%.80q): %w", c.Function.Name, c.Function.Arguments, err)
			}
			if args == nil {
				args = map[string]any{}
			}
		}
		id := c.ID
		if id == "" {
			id = newID()
		}
		out = append(out, ToolCall{ID: id, Name: c.Function.Name, Arguments: args})
	}
	return out, nil
}
