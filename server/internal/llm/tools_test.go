package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "what to look for"},
    "limit": {"type": ["integer", "null"], "minimum": 1},
    "mode": {"type": "string", "enum": ["web", "news"]},
    "filters": {
      "type": "object",
      "properties": {
        "site": {"type": "string"},
        "after": {"type": "string", "description": "ISO date"}
      },
      "required": ["site"]
    },
    "tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "weight": {"type": "number"}}}},
    "kind": {"const": "search"},
    "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
  },
  "required": ["query"]
}`

func TestToolSchemaConversion(t *testing.T) {
	tools, err := toAPITools([]Tool{{Name: "search", Description: "Search the web", Parameters: json.RawMessage(searchSchema)}})
	if err != nil {
		t.Fatal(err)
	}
	fn := tools[0].Function
	if tools[0].Type != "function" || fn.Name != "search" || fn.Description != "Search the web" {
		t.Fatalf("tool header %+v", tools[0])
	}
	p := fn.Parameters
	if p.Type != "object" || !reflect.DeepEqual(p.Required, []string{"query"}) {
		t.Errorf("top level %+v", p)
	}
	var order []string
	for k := range p.Properties.All() {
		order = append(order, k)
	}
	if want := []string{"query", "limit", "mode", "filters", "tags", "kind", "target"}; !reflect.DeepEqual(order, want) {
		t.Errorf("property order %v, want the author's %v", order, want)
	}
	get := func(name string) api.ToolProperty {
		v, ok := p.Properties.Get(name)
		if !ok {
			t.Fatalf("property %s lost", name)
		}
		return v
	}
	if q := get("query"); q.Type.String() != "string" || q.Description != "what to look for" {
		t.Errorf("query %+v", q)
	}
	if l := get("limit"); !reflect.DeepEqual([]string(l.Type), []string{"integer", "null"}) {
		t.Errorf("limit type %v", l.Type)
	}
	if m := get("mode"); !reflect.DeepEqual(m.Enum, []any{"web", "news"}) {
		t.Errorf("mode enum %v", m.Enum)
	}
	filters := get("filters")
	if filters.Properties == nil || filters.Properties.Len() != 2 {
		t.Fatalf("nested properties lost: %+v", filters)
	}
	if a, _ := filters.Properties.Get("after"); a.Description != "ISO date" {
		t.Errorf("nested description lost: %+v", a)
	}
	items, ok := get("tags").Items.(api.ToolProperty)
	if !ok || items.Type.String() != "object" || items.Properties.Len() != 2 {
		t.Errorf("array items %#v", get("tags").Items)
	}
	if k := get("kind"); !reflect.DeepEqual(k.Enum, []any{"search"}) {
		t.Errorf("const should become a one-value enum, got %v", k.Enum)
	}
	if tg := get("target"); len(tg.AnyOf) != 2 || tg.AnyOf[1].Type.String() != "integer" {
		t.Errorf("oneOf should become anyOf, got %+v", tg.AnyOf)
	}

	// The wire form the server decodes keeps the same shape.
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var back api.Tools
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"properties":{"query":`) || !strings.Contains(s, `"items":{"type":"object","properties":{"name"`) {
		t.Errorf("wire form %s", s)
	}
	if back[0].Function.Parameters.Properties.Len() != 7 {
		t.Errorf("decoded %d properties, want 7", back[0].Function.Parameters.Properties.Len())
	}
}

func TestToolSchemaErrors(t *testing.T) {
	cases := []struct {
		name   string
		tool   Tool
		errHas string
	}{
		{"no name", Tool{Parameters: json.RawMessage(`{}`)}, "no name"},
		{"not JSON", Tool{Name: "a", Parameters: json.RawMessage(`{`)}, "not a JSON Schema"},
		{"top level a string", Tool{Name: "a", Parameters: json.RawMessage(`{"type":"string"}`)}, "must be an object"},
		{"bad property", Tool{Name: "a", Parameters: json.RawMessage(`{"properties":{"x":[1]}}`)}, "property x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := toAPITools([]Tool{c.tool})
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("err = %v, want it to mention %q", err, c.errHas)
			}
		})
	}
	tools, err := toAPITools([]Tool{{Name: "now"}})
	if err != nil || tools[0].Function.Parameters.Type != "object" || tools[0].Function.Parameters.Properties.Len() != 0 {
		t.Errorf("a tool without parameters should take an empty object: %v %+v", err, tools)
	}
}

func TestToolCallsBothWays(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, _ int) {
		writeJSON(w, 200, map[string]any{
			"model": "tiny", "done": true, "done_reason": "stop", "prompt_eval_count": promptCount(req, nil),
			"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"id": "call_1", "function": map[string]any{"index": 0, "name": "search",
					"arguments": map[string]any{"query": "icm", "limit": 3, "filters": map[string]any{"site": "example.org"}}}},
			}},
		})
	}
	o := newTestClient(t, f.srv.URL, newFakeTime())
	history := []Message{
		{Role: RoleUser, Content: "find it"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0", Name: "read", Arguments: map[string]any{"b": 2.0, "a": "x"}}}},
		{Role: RoleTool, ToolName: "read", ToolCallID: "call_0", Content: "file text"},
	}
	resp, err := o.Chat(context.Background(), ChatRequest{
		Messages: history,
		Tools:    []Tool{{Name: "search", Description: "Search", Parameters: json.RawMessage(searchSchema)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Name != "search" {
		t.Fatalf("tool calls %+v", calls)
	}
	want := map[string]any{"query": "icm", "limit": 3.0, "filters": map[string]any{"site": "example.org"}}
	if !reflect.DeepEqual(calls[0].Arguments, want) {
		t.Errorf("arguments %#v, want %#v", calls[0].Arguments, want)
	}

	req := f.chatCalls()[0]
	if len(req.Tools) != 1 || req.Tools[0].Function.Name != "search" {
		t.Errorf("tools sent %v", req.Tools)
	}
	sent := req.Messages[1].ToolCalls
	if len(sent) != 1 || sent[0].ID != "call_0" || sent[0].Function.Name != "read" {
		t.Fatalf("history tool calls sent %+v", sent)
	}
	if got := sent[0].Function.Arguments.String(); got != `{"a":"x","b":2}` {
		t.Errorf("history arguments %s, want sorted keys", got)
	}
	if m := req.Messages[2]; m.Role != "tool" || m.ToolName != "read" || m.ToolCallID != "call_0" {
		t.Errorf("tool result sent as %+v", m)
	}
	if !strings.Contains(string(f.rawChats[0]), `"properties":{"query":`) {
		t.Errorf("the request body should carry the schema in the author's order")
	}
}

func TestFormatPassesThrough(t *testing.T) {
	schema := `{"type":"object","properties":{"items":{"type":"array"}},"required":["items"]}`
	cases := []struct {
		name   string
		format string
		want   string
		bad    bool
	}{
		{"none", "", "", false},
		{"json quoted", `"json"`, `"json"`, false},
		{"json bare", `json`, `"json"`, false},
		{"schema", schema, schema, false},
		{"garbage", `yaml`, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			o := newTestClient(t, f.srv.URL, newFakeTime())
			_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), Format: json.RawMessage(c.format)})
			if c.bad {
				if KindOf(err) != KindBadRequest || len(f.chatCalls()) != 0 {
					t.Errorf("err %v after %d calls, want a bad request before any call", err, len(f.chatCalls()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(f.chatCalls()[0].Format); got != c.want {
				t.Errorf("format sent %s, want %s", got, c.want)
			}
		})
	}
}

func FuzzToolSchema(f *testing.F) {
	f.Add([]byte(searchSchema))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`))
	f.Add([]byte(`{"properties":{"a":{"anyOf":[{"const":1},{"enum":[null]}]}}}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		tools, err := toAPITools([]Tool{{Name: "t", Parameters: schema}})
		if err != nil {
			return
		}
		// Whatever converts must encode, and decode as the server decodes it.
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatalf("converted schema does not encode: %v", err)
		}
		var back api.Tools
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("server could not decode %s: %v", b, err)
		}
	})
}
