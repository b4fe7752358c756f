package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// Higher-level cases against the scripted Ollama server.

func TestShowIsAskedOncePerModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "tiny", ContextLength: 8192, Family: "qwen3"},
		{Name: "other", ContextLength: 4096, Family: "llama"},
	}})
	srv.Default(ollamatest.Text("ok"))
	o := newTestClient(t, srv.URL(), newFakeTime())
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			model := "tiny"
			if i%2 == 1 {
				model = "other"
			}
			if _, err := o.Chat(ctx, ChatRequest{Model: model, Messages: userMsg("hi")}); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	info, err := o.Show(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if info.ContextLength != 4096 || info.Family != "llama" || info.ByteLevel {
		t.Errorf("show: %+v", info)
	}
	if n := len(srv.RequestsTo("/api/show")); n != 2 {
		t.Errorf("%d /api/show requests for two models, want 2", n)
	}
}

func TestScriptedToolCallRoundTrip(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.On(ollamatest.HasToolResult("search")).Reply(ollamatest.Text("found it"))
	srv.On(ollamatest.OffersTool("search")).Reply(ollamatest.Calls(
		ollamatest.Call("search", map[string]any{"query": "icm", "filters": map[string]any{"site": "example.org"}})))
	o := newTestClient(t, srv.URL(), newFakeTime())
	tools := []Tool{{Name: "search", Description: "Search", Parameters: json.RawMessage(searchSchema)}}
	msgs := userMsg("look it up")
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	want := map[string]any{"query": "icm", "filters": map[string]any{"site": "example.org"}}
	if len(calls) != 1 || calls[0].Name != "search" || !reflect.DeepEqual(calls[0].Arguments, want) || calls[0].ID == "" {
		t.Fatalf("tool calls %+v", calls)
	}
	msgs = append(msgs, resp.Message, Message{Role: RoleTool, ToolName: "search", ToolCallID: calls[0].ID, Content: "result"})
	resp, err = o.Chat(context.Background(), ChatRequest{Messages: msgs, Tools: tools})
	if err != nil || resp.Message.Content != "found it" {
		t.Fatalf("second turn: %v %+v", err, resp)
	}
	sent := srv.LastChat().Messages[1].ToolCalls
	if len(sent) != 1 || sent[0].Function.Name != "search" {
		t.Errorf("the assistant's tool call was not sent back: %+v", sent)
	}
}

func TestScriptedModelMissingAndPull(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{
		Models:   []ollamatest.Model{{Name: "tiny"}},
		Pullable: []ollamatest.Model{{Name: "qwen3:0.6b", Size: 1000}},
	})
	srv.Default(ollamatest.Text("hello"))
	o := newTestClient(t, srv.URL(), newFakeTime())
	ctx := context.Background()

	_, err := o.Chat(ctx, ChatRequest{Model: "qwen3:0.6b", Messages: userMsg("hi")})
	if KindOf(err) != KindModelMissing || !strings.Contains(hintOf(err), "ollama pull qwen3:0.6b") {
		t.Fatalf("err = %v (hint %q), want model missing with the pull command", err, hintOf(err))
	}

	var progress []PullProgress
	if err := o.Pull(ctx, "qwen3:0.6b", func(p PullProgress) { progress = append(progress, p) }); err != nil {
		t.Fatal(err)
	}
	if len(progress) < 3 || progress[0].Status != "pulling manifest" || progress[len(progress)-1].Status != "success" {
		t.Fatalf("progress %+v", progress)
	}
	var sawBytes bool
	for _, p := range progress {
		if p.Total == 1000 && p.Completed == 1000 && p.Digest != "" {
			sawBytes = true
		}
	}
	if !sawBytes {
		t.Errorf("no byte progress reported: %+v", progress)
	}
	// The model missing a moment ago is there now: show is asked again.
	resp, err := o.Chat(ctx, ChatRequest{Model: "qwen3:0.6b", Messages: userMsg("hi")})
	if err != nil || resp.Message.Content != "hello" {
		t.Fatalf("after pull: %v %+v", err, resp)
	}
}

func TestScriptedPullFailures(t *testing.T) {
	cases := []struct {
		name  string
		model string
		kind  Kind
		hint  string
	}{
		{"no such model in the registry", "nosuch:1b", KindModelMissing, "ollama.com/library"},
		{"registry unreachable", "offline:1b", KindUnavailable, "internet access"},
		{"other server error", "broken:1b", KindStream, "server log"},
	}
	srv := ollamatest.New(t, ollamatest.Config{Pullable: []ollamatest.Model{
		{Name: "offline:1b", PullError: "pull model manifest: Get \"https://registry.ollama.ai/v2/library/offline/manifests/1b\": dial tcp: lookup registry.ollama.ai: no such host"},
		{Name: "broken:1b", PullError: "digest mismatch, file must be downloaded again"},
	}})
	o := newTestClient(t, srv.URL(), newFakeTime())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n int
			err := o.Pull(context.Background(), c.model, func(PullProgress) { n++ })
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			if !strings.Contains(e.Hint, c.hint) || !strings.Contains(e.Msg, c.model) {
				t.Errorf("msg %q hint %q; want the model named and %q", e.Msg, e.Hint, c.hint)
			}
			if n == 0 {
				t.Error("the progress before the failure was not reported")
			}
		})
	}
}

func TestScriptedDroppedConnectionIsRetried(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Enqueue(ollamatest.Drop("partial answer"), ollamatest.Text("whole answer"))
	o := newTestClient(t, srv.URL(), newFakeTime())
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "whole answer" || resp.Attempts != 2 {
		t.Errorf("content %q after %d attempts, want the second answer", resp.Message.Content, resp.Attempts)
	}
}

func TestScriptedLengthAndStreamFailure(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Enqueue(ollamatest.Length("the answer ran o"), ollamatest.StreamFailure("half", "model crashed"))
	o := newTestClient(t, srv.URL(), newFakeTime())
	var d deltas
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	if err != nil || !resp.Incomplete {
		t.Fatalf("err %v, incomplete %v; want an incomplete answer", err, resp != nil && resp.Incomplete)
	}
	_, err = o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	if KindOf(err) != KindStream || !strings.Contains(err.Error(), "model crashed") {
		t.Errorf("err = %v, want the mid-stream error", err)
	}
}

func TestScriptedCountAboveEstimateIsTruncated(t *testing.T) {
	// The server counts one token per byte while the model's family makes
	// icm use the heuristic: the estimate fits the window, the real prompt
	// does not, and the server cuts it to the window.
	srv := ollamatest.New(t, ollamatest.Config{
		Models:      []ollamatest.Model{{Name: "tiny", ContextLength: 4096, Family: "qwen3"}},
		CountTokens: func(s string) int { return len(s) },
	})
	srv.Default(ollamatest.Text("an answer to a cut prompt"))
	o := newTestClient(t, srv.URL(), newFakeTime(), WithMaxOutput(256))
	prose := strings.Repeat("Contracts list inputs. ", 300) // ~6900 bytes, ~1500 estimated tokens
	_, err := o.Chat(context.Background(), ChatRequest{Stage: "05-item", Messages: userMsg(prose)})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindTruncated {
		t.Fatalf("err = %v, want KindTruncated", err)
	}
	if e.Evaluated != 4096 || e.Window != 4096 || e.Estimate >= 4096 {
		t.Errorf("evaluated %d window %d estimate %d", e.Evaluated, e.Window, e.Estimate)
	}
	// First window from the estimate, then the model's full length, then give up.
	if n := len(srv.ChatRequests()); n != 2 {
		t.Errorf("%d chat calls, want 2 (one retry with a larger window)", n)
	}
}

func TestScriptedConcurrentCalls(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Slots: 2})
	release := make(chan struct{})
	srv.Default(ollamatest.Text("done").WithHold(release))
	o := newTestClient(t, srv.URL(), newFakeTime())
	ctx := context.Background()
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			_, err := o.Chat(ctx, ChatRequest{Messages: userMsg("hi")})
			errs <- err
		}()
	}
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 2 }); err != nil {
		t.Fatal(err)
	}
	close(release)
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if p := srv.Stats().PeakActive; p != 2 {
		t.Errorf("peak %d calls at once, want 2", p)
	}
}
