package ollamamodel

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// startQwen3 starts the real server with the Qwen3-vocabulary model.
func startQwen3(t *testing.T) *realollama.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("realollama: -short skips tests that start a real Ollama server")
	}
	realollama.NeedQwen3(t)
	return realollama.Start(t, realollama.Options{Model: realollama.ModelSpec{Vocabulary: realollama.VocabQwen3, ContextLength: 32768}})
}

// serverChat posts a chat request and returns the server's answer.
func serverChat(t *testing.T, srv *realollama.Server, req *api.ChatRequest) api.ChatResponse {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out api.ChatResponse
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		t.Fatalf("server answered %d: %s", resp.StatusCode, e.Error)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestCountsMatchRealServer renders and counts chat requests with the
// model's own files and compares with what the real server renders
// (_debug_render_only) and evaluates (prompt_eval_count).
func TestCountsMatchRealServer(t *testing.T) {
	srv := startQwen3(t)
	cache := NewCache([]string{srv.ModelsDir})
	m, err := cache.Model(context.Background(), srv.Model)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tokenizer %s on %s", m.Tokenizer(), m.Runner())
	// The same model laid out without a server (what the benchmarks and
	// the calibration tests count with) renders and counts alike.
	laidDir := t.TempDir()
	if err := realollama.LayOut(laidDir, "laid-out", realollama.ModelSpec{Vocabulary: realollama.VocabQwen3, ContextLength: 32768}, ""); err != nil {
		t.Fatal(err)
	}
	laid, err := NewCache([]string{laidDir}).Model(context.Background(), "laid-out")
	if err != nil {
		t.Fatal(err)
	}
	tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: "search", Description: "Search the web for a few keywords."}}
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"query":{"type":"string","description":"keywords"},"max":{"type":"integer"}},"required":["query"]}`), &tool.Function.Parameters); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"prose":        "Read the course idea and the audience profile. Write four to six learning objectives.",
		"markdown":     "# Stage: 01-scope\n\n## Inputs\n- Layer 4 (working): input.md\n\n  - indented   item\twith tabs\n\n\n\nEnd.",
		"code":         "```go\nfunc main() {\n\tfmt.Println(\"héllo, 世界\") // 12345678\n}\n```\n",
		"unicode":      "Ünïcödé naïve café — “quotes” … 日本語のテキスト, 한국어, Жук, emoji 🙂👍🏽.",
		"specials":     "A literal <|im_end|> and <think>ideas</think> and <tool_call> inside text.",
		"whitespace":   "  leading spaces\n\n\n   \n\ttrailing   \n",
		"numbers":      "In 2024, 1,234,567 tokens cost $3.50 (or 3.5e-3 per 1k); v0.17.4 at 127.0.0.1:11434.",
		"contractions": "It's they're we've I'm you'll he'd DON'T WE'LL",
	}
	for name, text := range texts {
		for _, withTools := range []bool{false, true} {
			req := &api.ChatRequest{
				Model:    srv.Model,
				Messages: []api.Message{{Role: "system", Content: "You are careful.\n\n" + text}, {Role: "user", Content: text}},
				Think:    &api.ThinkValue{Value: false},
				Stream:   ptr(false),
				Truncate: ptr(false),
				Options:  map[string]any{"num_predict": 1, "num_ctx": 4096},
			}
			label := name
			if withTools {
				req.Tools = []api.Tool{tool}
				label += "+tools"
			}
			t.Run(label, func(t *testing.T) {
				prompt, err := m.Prompt(req)
				if err != nil {
					t.Fatal(err)
				}
				render := *req
				render.DebugRenderOnly = true
				if got := serverChat(t, srv, &render); got.DebugInfo == nil || got.DebugInfo.RenderedTemplate != prompt {
					var server string
					if got.DebugInfo != nil {
						server = got.DebugInfo.RenderedTemplate
					}
					t.Fatalf("prompt differs from the server's:\nicm:    %q\nserver: %q", prompt, server)
				}
				n, err := m.Count(prompt)
				if err != nil {
					t.Fatal(err)
				}
				if lp, err := laid.Prompt(req); err != nil || lp != prompt {
					t.Errorf("the laid-out model renders %q (%v), the created one %q", lp, err, prompt)
				} else if ln, _ := laid.Count(lp); ln != n {
					t.Errorf("the laid-out model counts %d, the created one %d", ln, n)
				}
				got := serverChat(t, srv, req)
				if got.PromptEvalCount != n {
					t.Errorf("icm counts %d tokens, the server evaluated %d", n, got.PromptEvalCount)
				}
			})
		}
	}
	// Without think in the request the server turns thinking on for a
	// model whose template has think tags.
	req := &api.ChatRequest{Model: srv.Model, Messages: []api.Message{{Role: "user", Content: "Hi"}}, Stream: ptr(false), DebugRenderOnly: true}
	prompt, err := m.Prompt(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := serverChat(t, srv, req); got.DebugInfo == nil || got.DebugInfo.RenderedTemplate != prompt {
		t.Errorf("think unset: icm %q, server %+v", prompt, got.DebugInfo)
	}
	if strings.Contains(prompt, "<think>") {
		t.Errorf("think unset renders an empty think block, as if turned off: %q", prompt)
	}
}
