package ollamatest_test

import (
	"encoding/json"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestMatchers(t *testing.T) {
	var tools api.Tools
	if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{}}}}]`), &tools); err != nil {
		t.Fatal(err)
	}
	agent := &ollamatest.Request{ChatRequest: api.ChatRequest{
		Model: "tiny:latest",
		Messages: []api.Message{
			{Role: "system", Content: "You write course objectives."},
			{Role: "user", Content: "Item: Ownership\nOther items: Borrowing"},
			{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "search"}}}},
			{Role: "tool", ToolName: "search", Content: "3 results about ownership"},
			{Role: "user", Content: "Now write the objectives for Ownership."},
		},
		Tools: tools,
	}}
	plain := &ollamatest.Request{ChatRequest: api.ChatRequest{
		Model:    "other",
		Messages: []api.Message{{Role: "user", Content: "hello"}},
		Format:   json.RawMessage(`"json"`),
	}}

	tests := []struct {
		name        string
		m           ollamatest.Matcher
		agent, user bool
	}{
		{"any", ollamatest.Any(), true, true},
		{"last user contains", ollamatest.LastUserContains("objectives for Ownership"), true, false},
		{"last user is the last one", ollamatest.LastUserContains("Item: Ownership"), false, false},
		{"user contains looks at all", ollamatest.UserContains("Item: Ownership"), true, false},
		{"last user matches", ollamatest.LastUserMatches(`(?i)^now write`), true, false},
		{"system contains", ollamatest.SystemContains("course objectives"), true, false},
		{"any tool result", ollamatest.HasToolResult(""), true, false},
		{"tool result by name", ollamatest.HasToolResult("search"), true, false},
		{"tool result of another tool", ollamatest.HasToolResult("fetch"), false, false},
		{"tool result contains", ollamatest.ToolResultContains("3 results"), true, false},
		{"has tools", ollamatest.HasTools(), true, false},
		{"offers tool", ollamatest.OffersTool("search"), true, false},
		{"offers another tool", ollamatest.OffersTool("fetch"), false, false},
		{"has format", ollamatest.HasFormat(), false, true},
		{"model with tag", ollamatest.ModelIs("tiny"), true, false},
		{"model without tag", ollamatest.ModelIs("OTHER:latest"), false, true},
		{"and", ollamatest.And(ollamatest.HasTools(), ollamatest.HasToolResult("")), true, false},
		{"and of none", ollamatest.And(), true, true},
		{"or", ollamatest.Or(ollamatest.HasFormat(), ollamatest.HasTools()), true, true},
		{"not", ollamatest.Not(ollamatest.HasTools()), false, true},
	}
	for _, tt := range tests {
		if got := tt.m(agent); got != tt.agent {
			t.Errorf("%s on the agent call = %v, want %v", tt.name, got, tt.agent)
		}
		if got := tt.m(plain); got != tt.user {
			t.Errorf("%s on the plain call = %v, want %v", tt.name, got, tt.user)
		}
	}
}

func TestRequestHelpers(t *testing.T) {
	var req ollamatest.Request
	body := `{"model":"tiny","stream":false,"think":"high","options":{"num_ctx":8192,"num_predict":"x"},
		"messages":[{"role":"system","content":"a"},{"role":"SYSTEM","content":"b"},{"role":"user","content":"q"}]}`
	if err := json.Unmarshal([]byte(body), &req.ChatRequest); err != nil {
		t.Fatal(err)
	}
	if req.System() != "a\nb" || req.LastUser() != "q" || req.Streaming() || req.NumCtx() != 8192 {
		t.Errorf("system %q last user %q streaming %v num_ctx %d", req.System(), req.LastUser(), req.Streaming(), req.NumCtx())
	}
	if _, ok := req.IntOption("num_predict"); ok {
		t.Error("a string option read as a number")
	}
	if on, set := req.ThinkRequested(); !on || !set {
		t.Errorf("think high: on %v set %v", on, set)
	}
	var empty ollamatest.Request
	if empty.LastUser() != "" || !empty.Streaming() || empty.NumCtx() != 0 {
		t.Error("zero request helpers")
	}
	if _, set := empty.ThinkRequested(); set {
		t.Error("think set on a zero request")
	}
}
