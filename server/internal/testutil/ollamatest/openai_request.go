package ollamatest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
)

// oaRequest is the body of POST /v1/chat/completions, as the OpenAI front
// reads it.
type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Tools         []oaTool    `json:"tools"`
	Stream        bool        `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	TopK                *int            `json:"top_k"`
	Seed                *int            `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// toChatRequest translates the call into the engine's shape (Ollama's
// request type), so every matcher and reply function works for both
// fronts: tool results get the tool's name from the call they answer,
// max_tokens becomes num_predict, response_format becomes format, and
// chat_template_kwargs.enable_thinking becomes think.
func (o *oaRequest) toChatRequest() (api.ChatRequest, error) {
	cr := api.ChatRequest{Model: o.Model, Stream: &o.Stream, Options: map[string]any{}}
	names := map[string]string{}
	for i, m := range o.Messages {
		content, err := contentText(m.Content)
		if err != nil {
			return cr, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		am := api.Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for j, c := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if c.Function.Arguments != "" {
				if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
					return cr, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments is not a JSON object: %w", i, j, err)
				}
			}
			names[c.ID] = c.Function.Name
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: c.ID, Function: api.ToolCallFunction{Index: j, Name: c.Function.Name, Arguments: args}})
		}
		if m.Role == "tool" {
			am.ToolName = names[m.ToolCallID]
		}
		cr.Messages = append(cr.Messages, am)
	}
	for i, t := range o.Tools {
		var params api.ToolFunctionParameters
		if len(t.Function.Parameters) > 0 {
			if err := json.Unmarshal(t.Function.Parameters, &params); err != nil {
				return cr, fmt.Errorf("tools[%d].function.parameters: %w", i, err)
			}
		}
		cr.Tools = append(cr.Tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Function.Name, Description: t.Function.Description, Parameters: params}})
	}
	switch {
	case o.MaxCompletionTokens != nil:
		cr.Options["num_predict"] = float64(*o.MaxCompletionTokens)
	case o.MaxTokens != nil:
		cr.Options["num_predict"] = float64(*o.MaxTokens)
	}
	if o.Temperature != nil {
		cr.Options["temperature"] = *o.Temperature
	}
	if o.TopP != nil {
		cr.Options["top_p"] = *o.TopP
	}
	if o.TopK != nil {
		cr.Options["top_k"] = float64(*o.TopK)
	}
	if o.Seed != nil {
		cr.Options["seed"] = float64(*o.Seed)
	}
	if len(o.Stop) > 0 && !bytes.Equal(o.Stop, []byte("null")) {
		var stop any
		_ = json.Unmarshal(o.Stop, &stop)
		cr.Options["stop"] = stop
	}
	if rf := o.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_object":
			cr.Format = json.RawMessage(`"json"`)
		case "json_schema":
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				return cr, fmt.Errorf("response_format json_schema needs json_schema.schema")
			}
			cr.Format = rf.JSONSchema.Schema
		case "text", "":
		default:
			return cr, fmt.Errorf("response_format.type %q is not one of text, json_object, json_schema", rf.Type)
		}
	}
	if v, ok := o.ChatTemplateKwargs["enable_thinking"].(bool); ok {
		cr.Think = &api.ThinkValue{Value: v}
	}
	return cr, nil
}

// contentText reads a message's content: a string, null, or a list of
// parts whose text parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "", nil
	}
	if t[0] == '"' {
		var s string
		err := json.Unmarshal(t, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(t, &parts); err != nil {
		return "", fmt.Errorf("want a string or a list of parts: %w", err)
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
