package llm

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// TestChatSaysWhatTheServerReused: with the model's files on this
// machine an Ollama call carries icm's prediction of the prompt tokens
// the server reused (the tiny model's tokenizer is one token per byte, so
// two prompts share as many tokens as their rendered texts share bytes);
// a server that reports the figure is believed instead, on both APIs.
func TestChatSaysWhatTheServerReused(t *testing.T) {
	dir := t.TempDir()
	if err := realollama.LayOut(dir, "tiny", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{dir}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", Digest: f.Digest, ContextLength: 8192}}})
	srv.Default(ollamatest.Text("ok"))
	o := newTestClient(t, srv.URL(), newFakeTime(), WithModelFiles(ollamamodel.NewCache([]string{dir})))
	run := NewPrefill(Caches{Default: CacheSetup{Slots: 2, Source: "config.toml"}})
	call := func(item string) *ChatResponse {
		t.Helper()
		resp, err := o.Chat(context.Background(), ChatRequest{Model: "tiny", Prefill: run, Messages: []Message{
			{Role: RoleSystem, Content: "The shared part of every item's prompt."}, {Role: RoleUser, Content: "Item: " + item}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first, second := call("one"), call("two")
	if first.Reuse == nil || second.Reuse == nil {
		t.Fatalf("no reuse figures: %+v, %+v", first.Reuse, second.Reuse)
	}
	// The scripted server's own counts are rough: the exact count is icm's.
	if first.Reuse.Reused != 0 || first.Reuse.Own != first.PromptEstimate || first.Reuse.Measured {
		t.Errorf("first call: %+v of %d tokens, want nothing reused, all its own, predicted", first.Reuse, first.PromptEstimate)
	}
	// The prompts differ from "Item: " on: "two", then <|im_end|>, "\n",
	// <|im_start|> and "assistant\n" (a special token is one token).
	own := len("two") + 1 + 1 + 1 + len("assistant\n")
	if got := second.Reuse; got.Reused != second.PromptEstimate-own || got.Own != own || got.Basis != "2 slots (config.toml)" {
		t.Errorf("second call: %+v of %d tokens, want %d reused, %d own, on the stated setup", got, second.PromptEstimate, second.PromptEstimate-own, own)
	}

	srv.Default(ollamatest.Text("ok").WithCached(17))
	if got := call("three").Reuse; got == nil || got.Reused != 17 || !got.Measured || got.Basis != ReportedBasis || got.Own == 0 {
		t.Errorf("a server that reports the figure: %+v, want 17 measured, with the prompt's own tokens", got)
	}
	oa, err := NewOpenAI(WithPermit(testPermit), WithBaseURL(srv.URL()+"/v1"), WithModel("tiny"), WithContextLength(8192))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := oa.Chat(context.Background(), ChatRequest{Model: "tiny", Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Reuse; got == nil || got.Reused != 17 || !got.Measured {
		t.Errorf("cached_tokens in OpenAI usage: %+v, want 17 measured", got)
	}
}
