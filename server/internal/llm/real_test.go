package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/schemas"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// The client against the real Ollama server (built from the pinned
// module) with its tiny byte-level model: what Ollama does with num_ctx,
// truncate=false, streaming, formats, tools and errors.

// countingTransport counts the chat requests that reach the network.
type countingTransport struct {
	base  http.RoundTripper
	chats atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/api/chat" {
		c.chats.Add(1)
	}
	return c.base.RoundTrip(r)
}

func TestRealOllama(t *testing.T) {
	srv := realollama.Start(t, realollama.Options{NumParallel: 2})
	ctx := context.Background()
	transport := &countingTransport{base: http.DefaultTransport}
	newClient := func(t *testing.T, opts ...OllamaOption) *Ollama {
		t.Helper()
		base := []OllamaOption{
			WithBaseURL(srv.URL), WithModel(srv.Model), WithGetenv(func(string) string { return "" }),
			WithHTTPClient(&http.Client{Transport: transport}), WithMaxOutput(64),
			WithStreamTimeouts(2*time.Minute, 30*time.Second),
		}
		o, err := NewOllama(append(append([]Option{WithPermit(testPermit)}, base...), opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	seed := func(n int) *int { return &n }
	o := newClient(t)

	t.Run("show reads the window and the byte-level vocabulary", func(t *testing.T) {
		info, err := o.Show(ctx, srv.Model)
		if err != nil {
			t.Fatal(err)
		}
		if info.ContextLength != srv.ContextLength || !info.ByteLevel || info.Family != "llama" {
			t.Errorf("show: %+v, want context %d, byte-level, llama", info, srv.ContextLength)
		}
	})

	t.Run("non-streaming, with num_ctx honoured", func(t *testing.T) {
		resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Say something."), Options: Options{Seed: seed(1)}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.DoneReason == "" || resp.PromptTokens == 0 || resp.OutputTokens == 0 {
			t.Errorf("response %+v lacks the server's counts", resp)
		}
		// The estimate is the byte count plus the template's markers: the
		// server's own count lands close to it.
		if d := resp.PromptTokens - resp.PromptEstimate; d < -8 || d > 8 {
			t.Errorf("server counted %d prompt tokens, icm estimated %d", resp.PromptTokens, resp.PromptEstimate)
		}
		if got := loadedWindow(t, srv.URL, srv.Model); got != resp.NumCtx {
			t.Errorf("the server loaded the model with a %d-token window, the call asked for %d", got, resp.NumCtx)
		}
	})

	t.Run("streaming", func(t *testing.T) {
		var d deltas
		resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Stream something."), OnDelta: d.on, Options: Options{Seed: seed(2)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.got) == 0 || d.text() != resp.Message.Content {
			t.Errorf("deltas %q do not add up to the answer %q", d.text(), resp.Message.Content)
		}
	})

	t.Run("done_reason length marks the answer incomplete", func(t *testing.T) {
		lengths := 0
		for s := 1; s <= 12; s++ {
			resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Go on."), Options: Options{MaxOutput: 3, Seed: seed(s)}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Incomplete != (resp.DoneReason == "length") {
				t.Errorf("seed %d: done_reason %q but Incomplete %v", s, resp.DoneReason, resp.Incomplete)
			}
			if resp.Incomplete {
				lengths++
			}
		}
		if lengths == 0 {
			t.Error("with num_predict 3 no answer stopped for length")
		}
	})

	t.Run("structured output follows the schema", func(t *testing.T) {
		schema := `{"type":"object","properties":{"title":{"type":"string","maxLength":12},"done":{"type":"boolean"}},"required":["title","done"]}`
		validate := compileSchema(t, schema)
		finished := 0
		for s := 1; s <= 6 && finished < 2; s++ {
			resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Answer in JSON."), Format: json.RawMessage(schema),
				Options: Options{MaxOutput: 200, Seed: seed(s)}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Incomplete {
				continue // cut by num_predict: not a finished answer, and icm would not accept it
			}
			finished++
			if err := validate(resp.Message.Content); err != nil {
				t.Errorf("seed %d: %q does not match the schema: %v", s, resp.Message.Content, err)
			}
		}
		if finished == 0 {
			t.Error("no structured answer finished within 200 tokens")
		}
		t.Logf("%d schema-constrained answers finished and matched", finished)
	})

	t.Run("tools are accepted", func(t *testing.T) {
		tools := []Tool{{Name: "search", Description: "Search the web", Parameters: json.RawMessage(searchSchema)}}
		resp, err := o.Chat(ctx, ChatRequest{Messages: userMsg("Look it up."), Tools: tools, Options: Options{Seed: seed(3)}})
		if err != nil {
			t.Fatal(err)
		}
		// The tool list is in the prompt the server evaluated.
		toolsJSON, _ := json.Marshal(mustTools(t, tools))
		if resp.PromptTokens < len(toolsJSON) {
			t.Errorf("server evaluated %d tokens, fewer than the %d bytes of tool schemas", resp.PromptTokens, len(toolsJSON))
		}
	})

	t.Run("a missing model says which pull", func(t *testing.T) {
		_, err := o.Chat(ctx, ChatRequest{Model: "nosuch-model:1b", Messages: userMsg("hi")})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindModelMissing || !strings.Contains(e.Hint, "ollama pull nosuch-model:1b") {
			t.Fatalf("err = %v (hint %q), want model missing naming the pull", err, hintOf(err))
		}
		missing := srv.MissingModel("nosuch-model")
		err = o.Pull(ctx, missing, nil)
		if KindOf(err) != KindModelMissing || srv.RegistryRequests() == 0 {
			t.Errorf("pull of %s: err = %v after %d registry requests, want model missing", missing, err, srv.RegistryRequests())
		}
	})

	t.Run("two calls at once", func(t *testing.T) {
		var wg sync.WaitGroup
		results := make([]*ChatResponse, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = o.Chat(ctx, ChatRequest{Messages: userMsg("In parallel."), Options: Options{Seed: seed(10 + i)}})
			}()
		}
		wg.Wait()
		for i := range 2 {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
		}
		if results[0].NumCtx != results[1].NumCtx {
			t.Errorf("windows %d and %d: concurrent calls must share one window, or the server reloads", results[0].NumCtx, results[1].NumCtx)
		}
	})

	t.Run("a prompt over the window is refused before the call", func(t *testing.T) {
		before := transport.chats.Load()
		_, err := o.Chat(ctx, ChatRequest{Stage: "02-long", Messages: userMsg(strings.Repeat("z", 5000))})
		if KindOf(err) != KindPromptTooLong {
			t.Fatalf("err = %v, want KindPromptTooLong", err)
		}
		if n := transport.chats.Load() - before; n != 0 {
			t.Errorf("%d chat requests were sent for a prompt refused beforehand", n)
		}
	})

	t.Run("the server refuses a fixed window the prompt overflows", func(t *testing.T) {
		// With the heuristic the 1,500-byte prompt looks like ~300 tokens
		// and fits num_ctx 1024; the server counts 1,500 and, told not to
		// truncate, refuses. A fixed window is not grown.
		h := newClient(t, WithEstimator(tokens.Default))
		before := transport.chats.Load()
		_, err := h.Chat(ctx, ChatRequest{Messages: userMsg(strings.Repeat("word ", 300)), Options: Options{NumCtx: 1024}})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTruncated || e.Status != http.StatusBadRequest || e.Window != 1024 {
			t.Fatalf("err = %v, want KindTruncated from the server's 400 for the 1024-token window", err)
		}
		if n := transport.chats.Load() - before; n != 1 {
			t.Errorf("%d chat requests, want 1", n)
		}
		t.Log(err)
	})

	t.Run("an estimate that fits but a real count that does not fails as truncated", func(t *testing.T) {
		// The heuristic counts about a token per word; this model counts a
		// token per byte. The heuristic's window is too small, the server
		// refuses it (truncate=false), the retry with the model's whole
		// window is refused too, and the call fails instead of answering.
		h := newClient(t, WithEstimator(tokens.Default), WithMaxOutput(256))
		prose := strings.Repeat("Stages read only what their contract lists. ", 180) // 7,920 bytes
		before := transport.chats.Load()
		resp, err := h.Chat(ctx, ChatRequest{Stage: "03-draft", Messages: userMsg(prose)})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTruncated {
			t.Fatalf("got %+v, err = %v; want KindTruncated", resp, err)
		}
		if e.Estimate >= srv.ContextLength || e.Window != srv.ContextLength {
			t.Errorf("estimate %d window %d: want an estimate that fits and the model's whole window", e.Estimate, e.Window)
		}
		if n := transport.chats.Load() - before; n != 2 {
			t.Errorf("%d chat requests, want 2 (the estimate's window, then the model's)", n)
		}
		t.Log(err)
	})
}

// loadedWindow asks /api/ps for the window the server loaded model with.
func loadedWindow(t *testing.T, base, model string) int {
	t.Helper()
	resp, err := http.Get(base + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps api.ProcessResponse
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		t.Fatal(err)
	}
	for _, m := range ps.Models {
		if m.Name == model || strings.TrimSuffix(m.Name, ":latest") == model {
			return m.ContextLength
		}
	}
	t.Fatalf("/api/ps does not list %s: %+v", model, ps.Models)
	return 0
}

// compileSchema returns a validator for JSON text against schema.
func compileSchema(t *testing.T, schema string) func(string) error {
	t.Helper()
	sch, err := schemas.Compile("schema.json", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return func(text string) error {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return err
		}
		return sch.Validate(inst)
	}
}

func mustTools(t *testing.T, tools []Tool) api.Tools {
	t.Helper()
	out, err := toAPITools(tools)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
