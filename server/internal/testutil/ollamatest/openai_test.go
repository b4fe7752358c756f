package ollamatest_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOpenAIFront(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 100}}, AllowUnscripted: true})
	srv.On(ollamatest.HasToolResult("find")).Reply(ollamatest.Text("done"))
	srv.Default(ollamatest.Calls(ollamatest.Call("find", map[string]any{"q": "x"})))
	cases := []struct {
		name, body string
		status     int
		// want is a piece of the answer's body.
		want string
	}{
		{"tool call, whole", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"find","parameters":{"type":"object"}}}]}`, 200, `"finish_reason":"tool_calls"`},
		{"tool result named by its call", `{"model":"tiny","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"find","arguments":"{\"q\":\"x\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, 200, `"content":"done"`},
		{"unknown model", `{"model":"big","messages":[{"role":"user","content":"hi"}]}`, 404, "The model `big` does not exist."},
		{"over the window", `{"model":"tiny","max_tokens":90,"messages":[{"role":"user","content":"` + strings.Repeat("word ", 40) + `"}]}`, 400, "maximum context length is 100 tokens"},
		{"bad response_format", `{"model":"tiny","response_format":{"type":"xml"},"messages":[{"role":"user","content":"hi"}]}`, 400, "response_format.type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, srv.URL(), tc.body)
			var b strings.Builder
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				b.WriteString(sc.Text())
			}
			if resp.StatusCode != tc.status || !strings.Contains(b.String(), tc.want) {
				t.Errorf("status %d, body %s; want %d with %q", resp.StatusCode, b.String(), tc.status, tc.want)
			}
		})
	}
	if r := srv.LastChat(); r == nil || r.Path != "/v1/chat/completions" {
		t.Errorf("last chat %+v", r)
	}
}

func TestOpenAIFrontStreams(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Default(ollamatest.Think("hmm", "hello big world"))
	resp := post(t, srv.URL(), `{"model":"tiny","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var content, reasoning strings.Builder
	var finish string
	usage, done := false, false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					ReasoningContent string `json:"reasoning_content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		for _, c := range chunk.Choices {
			reasoning.WriteString(c.Delta.ReasoningContent)
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
		if chunk.Usage != nil && chunk.Usage.PromptTokens > 0 {
			usage = true
		}
		var raw map[string]any
		_ = json.Unmarshal([]byte(data), &raw)
		if ch, _ := raw["choices"].([]any); len(ch) > 0 {
			if d, _ := ch[0].(map[string]any)["delta"].(map[string]any); d != nil {
				if s, _ := d["content"].(string); s != "" {
					content.WriteString(s)
				}
			}
		}
	}
	if content.String() != "hello big world" || reasoning.String() != "hmm" || finish != "stop" || !usage || !done {
		t.Errorf("content %q, reasoning %q, finish %q, usage %v, done %v", content.String(), reasoning.String(), finish, usage, done)
	}
}
