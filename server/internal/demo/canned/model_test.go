package canned_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// script is a two-step tool conversation: search when no result is in,
// answer once the search's result is.
const script = `{
  "models": [{"name": "canned", "context_length": 8192, "family": "demo", "capabilities": ["completion", "tools"]}],
  "latency": "1ms", "slots": 2,
  "rules": [
    {"when": {"user_contains": "find", "has_tool_result": false},
     "reply": [{"tool_calls": [{"name": "search", "arguments": {"query": "go", "max_results": 3}}]}]},
    {"when": {"user_contains": "find", "tool_result_from": "search", "tool_result_contains": "golang.org"},
     "reply": [{"content": "Go is at golang.org."}]},
    {"when": {"last_user_contains": "count"},
     "reply": [{"content": "one"}, {"content": "two"}]}
  ],
  "default": {"content": "no canned answer"}
}`

func start(t *testing.T, text string) *canned.Model {
	t.Helper()
	s, err := canned.ParseScript("s.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	m, err := canned.StartModel(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// chat makes one call through Ollama's own client and gathers the answer.
func chat(t *testing.T, m *canned.Model, req *api.ChatRequest) (content string, calls []api.ToolCall, chunks int, final api.ChatResponse) {
	t.Helper()
	u, _ := url.Parse(m.URL())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := api.NewClient(u, http.DefaultClient).Chat(ctx, req, func(r api.ChatResponse) error {
		chunks++
		content += r.Message.Content
		calls = append(calls, r.Message.ToolCalls...)
		if r.Done {
			final = r
		}
		return nil
	})
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	return content, calls, chunks, final
}

func user(text string) *api.ChatRequest {
	return &api.ChatRequest{Model: "canned", Messages: []api.Message{{Role: "user", Content: text}}}
}

// TestModelAnswersAToolConversation: the rule that holds answers, a tool
// call first and the answer once the tool's result is in; the stream
// ends with a done chunk whose counts follow the prompt and the answer.
func TestModelAnswersAToolConversation(t *testing.T) {
	m := start(t, script)
	req := user("find the Go site")
	req.Options = map[string]any{"num_ctx": 4096}
	_, calls, _, final := chat(t, m, req)
	if len(calls) != 1 || calls[0].Function.Name != "search" || calls[0].ID != "call_00000001" || calls[0].Function.Arguments.String() != `{"max_results":3,"query":"go"}` {
		t.Fatalf("first call: tool calls %+v", calls)
	}
	if !final.Done || final.DoneReason != "stop" || final.PromptEvalCount != (len(canned.PromptText(req))+3)/4 || final.EvalCount < 1 || final.EvalDuration <= 0 {
		t.Errorf("done chunk %+v", final)
	}
	req.Messages = append(req.Messages, api.Message{Role: "assistant", ToolCalls: calls},
		api.Message{Role: "tool", ToolName: "search", Content: "1. https://golang.org"})
	content, calls, chunks, _ := chat(t, m, req)
	if content != "Go is at golang.org." || len(calls) != 0 || chunks != 5 {
		t.Errorf("second call: %q, %d tool calls, %d chunks (want 4 words and the done chunk)", content, len(calls), chunks)
	}
	if m.Calls() != 2 {
		t.Errorf("Calls() = %d, want 2", m.Calls())
	}
}

// TestModelRepliesInOrderThenRepeats: a rule with two replies gives them
// in order and then repeats the last; what no rule takes gets the
// default; a call without a stream gets one object.
func TestModelRepliesInOrderThenRepeats(t *testing.T) {
	m := start(t, script)
	var got []string
	for range 3 {
		c, _, _, _ := chat(t, m, user("count"))
		got = append(got, c)
	}
	if strings.Join(got, ",") != "one,two,two" {
		t.Errorf("replies %v", got)
	}
	req := user("something else")
	req.Stream = new(bool)
	c, _, chunks, final := chat(t, m, req)
	if c != "no canned answer" || chunks != 1 || !final.Done {
		t.Errorf("unstreamed default: %q in %d chunks", c, chunks)
	}
}

// TestModelDescribesItsModel: /api/show gives the context length where
// clients read it, and a model the script does not name is not found.
func TestModelDescribesItsModel(t *testing.T) {
	m := start(t, script)
	u, _ := url.Parse(m.URL())
	c := api.NewClient(u, http.DefaultClient)
	show, err := c.Show(t.Context(), &api.ShowRequest{Model: "canned:latest"})
	if err != nil {
		t.Fatal(err)
	}
	if show.ModelInfo["general.architecture"] != "demo" || show.ModelInfo["demo.context_length"] != float64(8192) || len(show.Capabilities) != 2 {
		t.Errorf("show: %+v", show)
	}
	_, err = c.Show(t.Context(), &api.ShowRequest{Model: "other"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || !strings.Contains(se.ErrorMessage, "model 'other' not found") {
		t.Errorf("unknown model: %v", err)
	}
	err = c.Chat(t.Context(), &api.ChatRequest{Model: "other", Messages: user("x").Messages}, func(api.ChatResponse) error { return nil })
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Errorf("chat with an unknown model: %v", err)
	}
}

// TestModelWithoutDefaultSaysSo: a call nothing answers is an error that
// names the demo's script, not an empty answer.
func TestModelWithoutDefaultSaysSo(t *testing.T) {
	m := start(t, `{"models": [{"name": "canned", "context_length": 8192}], "rules": []}`)
	u, _ := url.Parse(m.URL())
	err := api.NewClient(u, http.DefaultClient).Chat(t.Context(), user("x"), func(api.ChatResponse) error { return nil })
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError || !strings.Contains(se.ErrorMessage, "no canned answer") {
		t.Errorf("unanswered call: %v", err)
	}
}

// TestCloseEndsAWaitingCall: a call sleeping through its latency ends
// when the server closes, and Close does not wait for the latency.
func TestCloseEndsAWaitingCall(t *testing.T) {
	s, err := canned.ParseScript("s.json", []byte(`{"models": [{"name": "canned", "context_length": 8192}], "latency": "1h", "default": {"content": "late"}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := canned.StartModel(s)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(user("x"))
	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(m.URL()+"/api/chat", "application/json", strings.NewReader(string(body)))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	// The call is in the server once it is counted.
	for deadline := time.Now().Add(30 * time.Second); m.Calls() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call never reached the server")
		}
	}
	m.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the waiting call got an answer from a closed server")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting call did not end when the server closed")
	}
}
