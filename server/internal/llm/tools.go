package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ollama/ollama/api"
)

// Ollama's wire types hold a subset of JSON Schema: at the top level
// type, $defs, items, required and properties; below it type (one or a
// list), anyOf, items, description, enum and properties. The server
// decodes into the same types, so whatever they cannot hold never reaches
// the model's template. The conversion below keeps everything they can
// hold, in the author's property order (the rendered prompt stays
// byte-identical from call to call, which keeps the server's prompt cache
// warm), and rewrites the two keywords whose loss would hide the shape
// of a value from the model: oneOf becomes anyOf and const becomes a
// one-value enum. Validation-only keywords (minimum, pattern, nested
// required, additionalProperties, ...) are dropped; the engine checks
// every call against the full schema before running it.

// toAPITools converts the offered tools to Ollama's wire form.
func toAPITools(tools []Tool) (api.Tools, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make(api.Tools, 0, len(tools))
	for _, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("a tool has no name")
		}
		params, err := toAPIParameters(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %s: unable to convert its parameters schema: %w", t.Name, err)
		}
		out = append(out, api.Tool{
			Type: "function",
			Function: api.ToolFunction{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out, nil
}

// schemaNode is the part of a JSON Schema node the conversion reads.
type schemaNode struct {
	Type        api.PropertyType  `json:"type"`
	Description string            `json:"description"`
	Enum        []any             `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	AnyOf       []json.RawMessage `json:"anyOf"`
	OneOf       []json.RawMessage `json:"oneOf"`
	Items       json.RawMessage   `json:"items"`
	Properties  json.RawMessage   `json:"properties"`
	Required    []string          `json:"required"`
	Defs        json.RawMessage   `json:"$defs"`
}

// maxSchemaDepth bounds recursion on hostile or cyclic-looking schemas.
const maxSchemaDepth = 32

func toAPIParameters(raw json.RawMessage) (api.ToolFunctionParameters, error) {
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return params, nil
	}
	var n schemaNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return params, fmt.Errorf("not a JSON Schema object: %w", err)
	}
	if len(n.Type) > 1 || (len(n.Type) == 1 && n.Type[0] != "object") {
		return params, fmt.Errorf("the top level must be an object schema, not %q", n.Type.String())
	}
	props, err := toAPIProperties(n.Properties, 1)
	if err != nil {
		return params, err
	}
	params.Properties = props
	params.Required = n.Required
	if len(n.Items) > 0 {
		if params.Items, err = toAPIItems(n.Items, 1); err != nil {
			return params, err
		}
	}
	if len(n.Defs) > 0 {
		var defs any
		if err := json.Unmarshal(n.Defs, &defs); err != nil {
			return params, fmt.Errorf("$defs: %w", err)
		}
		params.Defs = defs
	}
	return params, nil
}

// toAPIProperties converts a "properties" object, keeping its key order.
func toAPIProperties(raw json.RawMessage, depth int) (*api.ToolPropertiesMap, error) {
	out := api.NewToolPropertiesMap()
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return out, nil
	}
	keys, values, err := orderedObject(raw)
	if err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	for i, k := range keys {
		p, err := toAPIProperty(values[i], depth+1)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		out.Set(k, p)
	}
	return out, nil
}

func toAPIProperty(raw json.RawMessage, depth int) (api.ToolProperty, error) {
	var p api.ToolProperty
	if depth > maxSchemaDepth {
		return p, fmt.Errorf("nested deeper than %d levels", maxSchemaDepth)
	}
	trimmed := bytes.TrimSpace(raw)
	if bytes.Equal(trimmed, []byte("true")) || bytes.Equal(trimmed, []byte("{}")) {
		return p, nil // any value
	}
	var n schemaNode
	if err := json.Unmarshal(raw, &n); err != nil {
		return p, fmt.Errorf("not a JSON Schema object: %w", err)
	}
	p.Type = n.Type
	p.Description = n.Description
	p.Enum = n.Enum
	if len(n.Const) > 0 && len(p.Enum) == 0 {
		var c any
		if err := json.Unmarshal(n.Const, &c); err != nil {
			return p, fmt.Errorf("const: %w", err)
		}
		p.Enum = []any{c}
	}
	for _, alt := range append(n.AnyOf, n.OneOf...) {
		a, err := toAPIProperty(alt, depth+1)
		if err != nil {
			return p, fmt.Errorf("anyOf/oneOf: %w", err)
		}
		p.AnyOf = append(p.AnyOf, a)
	}
	if len(n.Items) > 0 {
		items, err := toAPIItems(n.Items, depth+1)
		if err != nil {
			return p, err
		}
		p.Items = items
	}
	if len(n.Properties) > 0 {
		props, err := toAPIProperties(n.Properties, depth)
		if err != nil {
			return p, err
		}
		if props.Len() > 0 {
			p.Properties = props
		}
	}
	return p, nil
}

// toAPIItems converts "items": a schema object becomes a ToolProperty
// (ordered, converted like any property); a tuple list or a boolean is
// passed on as decoded JSON.
func toAPIItems(raw json.RawMessage, depth int) (any, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		p, err := toAPIProperty(raw, depth)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		return p, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	return v, nil
}

// orderedObject splits a JSON object into its keys and raw values, in
// document order (encoding/json maps lose the order).
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("want an object, got %v", tok)
	}
	var keys []string
	var values []json.RawMessage
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("want a key, got %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if i, dup := seen[key]; dup {
			values[i] = v // the last duplicate wins, as in encoding/json
			continue
		}
		seen[key] = len(keys)
		keys = append(keys, key)
		values = append(values, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, values, nil
}

// toAPIMessages converts chat history to the wire form. Tool-call
// arguments are written in sorted key order so the same history renders
// to the same bytes every time.
func toAPIMessages(msgs []Message) []api.Message {
	out := make([]api.Message, len(msgs))
	for i, m := range msgs {
		am := api.Message{
			Role:       m.Role,
			Content:    m.Content,
			Thinking:   m.Thinking,
			ToolName:   m.ToolName,
			ToolCallID: m.ToolCallID,
		}
		for j, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			keys := make([]string, 0, len(tc.Arguments))
			for k := range tc.Arguments {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				args.Set(k, tc.Arguments[k])
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{
				ID:       tc.ID,
				Function: api.ToolCallFunction{Index: j, Name: tc.Name, Arguments: args},
			})
		}
		out[i] = am
	}
	return out
}

// fromAPIToolCalls converts the model's tool calls back.
func fromAPIToolCalls(calls []api.ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		args := c.Function.Arguments.ToMap()
		if args == nil {
			args = map[string]any{}
		}
		out[i] = ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args}
	}
	return out
}
