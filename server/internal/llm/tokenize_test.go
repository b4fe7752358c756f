package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// tokenizeCall is a stage-like call: system and user text, a tool and a
// think setting, everything that shapes the prompt.
func tokenizeCall() ChatRequest {
	think := false
	return ChatRequest{
		Messages: []Message{{Role: RoleSystem, Content: "You write course notes.\n\n## Audience\nBeginners."}, {Role: RoleUser, Content: "Write notes on installing Ollama."}},
		Tools:    []Tool{{Name: "search", Description: "Search the web", Parameters: json.RawMessage(searchSchema)}},
		Think:    &think,
	}
}

// TestOpenAICountsWithTokenize: on vLLM and on llama-server the count is
// the server's own (their tokenize endpoints, each in its form), equal to
// the prompt_tokens of the call; the endpoint is probed once per server,
// shared by every client of one CountMemory; the window check uses the
// count.
func TestOpenAICountsWithTokenize(t *testing.T) {
	for _, tc := range []struct {
		dialect string
		// per count after the first: requests to /tokenize and /apply-template
		tokenize, template int
	}{
		{ollamatest.TokenizeVLLM, 1, 0},
		{ollamatest.TokenizeLlamaCpp, 1, 1},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Tokenize: tc.dialect, Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}}})
			srv.Default(ollamatest.Text("ok"))
			mem := NewCountMemory()
			req := tokenizeCall()
			for i := 0; i < 3; i++ {
				// A new client each time, as the language server makes them.
				o := newTestOpenAI(t, srv.URL(), newFakeTime(), WithCountMemory(mem))
				c, err := o.CountPrompt(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := o.Chat(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if c.Method != tokens.Server || c.Label() != "server /tokenize" || c.Tokens != resp.PromptTokens {
					t.Errorf("count %+v (%s), the call's prompt_tokens %d", c, c.Label(), resp.PromptTokens)
				}
				if resp.PromptCount != c || resp.PromptEstimate != c.Tokens {
					t.Errorf("the window check used %+v (%d), want %+v", resp.PromptCount, resp.PromptEstimate, c)
				}
			}
			// Each count and each call's check asked once; the probe was
			// the first of them, and was not repeated.
			counts := 6
			probe := 0
			if tc.dialect == ollamatest.TokenizeLlamaCpp {
				probe = 1 // the probe's own empty answer
			}
			if got := len(srv.RequestsTo("/tokenize")); got != probe+counts*tc.tokenize {
				t.Errorf("%d requests to /tokenize, want %d", got, probe+counts*tc.tokenize)
			}
			if got := len(srv.RequestsTo("/apply-template")); got != counts*tc.template {
				t.Errorf("%d requests to /apply-template, want %d", got, counts*tc.template)
			}
			if first := srv.RequestsTo("/tokenize")[0]; !strings.Contains(string(first.Body), `"messages"`) || !strings.Contains(string(first.Body), `"enable_thinking":false`) || !strings.Contains(string(first.Body), `"tools"`) {
				t.Errorf("the probe sent %s", first.Body)
			}
		})
	}
}

// TestOpenAIWithoutTokenizeEstimatesAndProbesOnce: a server without the
// endpoint (404) is probed once; every later count, by any client sharing
// the memory, estimates without asking.
func TestOpenAIWithoutTokenizeEstimatesAndProbesOnce(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("ok"))
	mem := NewCountMemory()
	req := tokenizeCall()
	for i := 0; i < 3; i++ {
		o := newTestOpenAI(t, srv.URL(), newFakeTime(), WithCountMemory(mem))
		c, err := o.CountPrompt(context.Background(), req)
		if err != nil || c.Method != tokens.Estimated || c.Tokens <= 0 {
			t.Fatalf("count %+v, %v; want an estimate", c, err)
		}
		resp, err := o.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.PromptCount.Method != tokens.Estimated || resp.PromptGuess != c.Tokens {
			t.Errorf("the call counted %+v (guess %d), the count said %+v", resp.PromptCount, resp.PromptGuess, c)
		}
	}
	if got := len(srv.RequestsTo("/tokenize")); got != 1 {
		t.Errorf("%d requests to /tokenize, want the one probe", got)
	}
	if got := len(srv.RequestsTo("/apply-template")); got != 0 {
		t.Errorf("%d requests to /apply-template", got)
	}
}

// TestTokenizeProbeRetriesAfterPassingFailure: a probe that fails for a
// passing reason (503) is not remembered as "no endpoint": the server is
// left alone for a minute, then probed again.
func TestTokenizeProbeRetriesAfterPassingFailure(t *testing.T) {
	var probes atomic.Int32
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tokenize" {
			http.NotFound(w, r)
			return
		}
		if probes.Add(1) == 1 {
			http.Error(w, `{"error":{"message":"loading"}}`, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"count": 42, "max_model_len": 8192, "tokens": []}`))
	}))
	t.Cleanup(fake.Close)
	clock := newFakeTime()
	o := newTestOpenAI(t, fake.URL, clock)
	count := func() tokens.Count {
		c, err := o.CountPrompt(context.Background(), tokenizeCall())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count(); c.Method != tokens.Estimated {
		t.Fatalf("first count %+v, want an estimate (the server was busy)", c)
	}
	if c := count(); c.Method != tokens.Estimated || probes.Load() != 1 {
		t.Fatalf("second count %+v after %d probes: the server should be left alone for a while", c, probes.Load())
	}
	_ = clock.Sleep(context.Background(), tokenizeRetry+time.Second)
	if c := count(); c.Method != tokens.Server || c.Tokens != 42 {
		t.Errorf("after a minute: %+v, want the server's 42", c)
	}
}

func TestTokenizeRoot(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8000/v1":        "http://127.0.0.1:8000",
		"http://127.0.0.1:8000":           "http://127.0.0.1:8000",
		"https://gateway/openai/v1/":      "https://gateway/openai",
		"https://gateway/openai/serve/v1": "https://gateway/openai/serve",
	} {
		o, err := NewOpenAI(WithPermit(testPermit), WithBaseURL(base))
		if err != nil {
			t.Fatal(err)
		}
		if got := o.root().String(); got != want {
			t.Errorf("%s: root %s, want %s", base, got, want)
		}
	}
}
