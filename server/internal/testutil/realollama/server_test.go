package realollama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// TestRealServer checks the helper and the tiny model against one real
// server, shared by the subtests because each start costs a second.
func TestRealServer(t *testing.T) {
	srv := Start(t, Options{})

	t.Run("version", func(t *testing.T) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api/version", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct{ Version string }
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimPrefix(srv.Binary.Version, "v"); resp.StatusCode != http.StatusOK || v.Version != want {
			t.Errorf("/api/version = %d %q, want 200 %q", resp.StatusCode, v.Version, want)
		}
	})

	t.Run("show", func(t *testing.T) {
		status, reply := post(t, srv.URL+"/api/show", map[string]string{"model": srv.Model})
		if status != http.StatusOK {
			t.Fatalf("/api/show: status %d: %s", status, reply)
		}
		var show api.ShowResponse
		if err := json.Unmarshal(reply, &show); err != nil {
			t.Fatal(err)
		}
		if got, ok := show.ModelInfo["llama.context_length"].(float64); !ok || int(got) != srv.ContextLength {
			t.Errorf("llama.context_length = %v, want %d", show.ModelInfo["llama.context_length"], srv.ContextLength)
		}
		// One compute thread, or the server crawls on a loaded machine
		// (see testdata/Modelfile).
		oneThread := false
		for _, line := range strings.Split(show.Parameters, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "num_thread" && f[1] == "1" {
				oneThread = true
			}
		}
		if !oneThread {
			t.Errorf("the model's parameters %q do not set num_thread 1", show.Parameters)
		}
		caps := fmt.Sprint(show.Capabilities)
		for _, want := range []string{"completion", "tools"} {
			if !strings.Contains(caps, want) {
				t.Errorf("capabilities %s lack %q", caps, want)
			}
		}
	})

	t.Run("one token per byte", func(t *testing.T) {
		// The template adds <|im_start|>user\n ... <|im_end|>\n<|im_start|>assistant\n:
		// three special tokens and 16 bytes around the content.
		for _, n := range []int{1, 100, 3000} {
			resp := chat(t, srv, chatRequest(srv.Model, strings.Repeat("b", n), false, map[string]any{"num_predict": 1}))
			if want := n + 19; resp.PromptEvalCount != want {
				t.Errorf("a %d-byte message: prompt_eval_count %d, want %d", n, resp.PromptEvalCount, want)
			}
		}
	})

	t.Run("non-streaming chat", func(t *testing.T) {
		// An answer is empty when the model ends at once (4% of the
		// time), so allow a few tries to see text.
		for try := range 5 {
			resp := chat(t, srv, chatRequest(srv.Model, "hello", false, map[string]any{"num_predict": 200}))
			if !resp.Done || resp.DoneReason == "" || resp.Message.Role != "assistant" {
				t.Fatalf("reply not finished: %+v", resp)
			}
			if resp.Message.Content != "" {
				t.Logf("try %d: %q (%s)", try, resp.Message.Content, resp.DoneReason)
				return
			}
		}
		t.Error("five answers were all empty")
	})

	t.Run("streaming chat", func(t *testing.T) {
		for range 5 {
			chunks := chatStream(t, srv, chatRequest(srv.Model, "hello", true, map[string]any{"num_predict": 200}))
			last := chunks[len(chunks)-1]
			if !last.Done || last.DoneReason == "" || last.EvalCount == 0 {
				t.Fatalf("last chunk not final: %+v", last)
			}
			var text strings.Builder
			for _, c := range chunks[:len(chunks)-1] {
				if c.Done {
					t.Fatalf("a chunk before the last says done: %+v", c)
				}
				text.WriteString(c.Message.Content)
			}
			text.WriteString(last.Message.Content)
			if text.Len() > 0 && len(chunks) >= 2 {
				return
			}
		}
		t.Error("five streams brought no text")
	})

	t.Run("ends by itself", func(t *testing.T) {
		reasons := map[string]int{}
		var tokens int
		const calls = 20
		for range calls {
			resp := chat(t, srv, chatRequest(srv.Model, "tell me", false, map[string]any{"num_predict": 300}))
			reasons[resp.DoneReason]++
			tokens += resp.EvalCount
		}
		t.Logf("num_predict 300, %d calls: done reasons %v, %.1f tokens per answer", calls, reasons, float64(tokens)/calls)
		if reasons["stop"] == 0 {
			t.Errorf("no answer ended by itself: %v", reasons)
		}
		// And with room for one token, most stop for length.
		reasons = map[string]int{}
		for range calls {
			reasons[chat(t, srv, chatRequest(srv.Model, "tell me", false, map[string]any{"num_predict": 1})).DoneReason]++
		}
		t.Logf("num_predict 1, %d calls: done reasons %v", calls, reasons)
		if reasons["length"] == 0 {
			t.Errorf("no answer stopped for length: %v", reasons)
		}
	})

	t.Run("silent truncation", func(t *testing.T) {
		prompt := strings.Repeat("lorem ipsum ", 1250) // 15,000 bytes, so 15,019 tokens
		tests := []struct {
			numCtx int
			want   int
		}{
			{512, 512},
			{20000, srv.ContextLength}, // capped at the model's length
		}
		for _, tt := range tests {
			resp := chat(t, srv, chatRequest(srv.Model, prompt, false, map[string]any{"num_ctx": tt.numCtx, "num_predict": 1}))
			if resp.PromptEvalCount != tt.want {
				t.Errorf("num_ctx %d: prompt_eval_count %d, want %d", tt.numCtx, resp.PromptEvalCount, tt.want)
			}
		}
	})

	t.Run("structured output", func(t *testing.T) {
		schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","maxLength":16},` +
			`"count":{"type":"integer"}},"required":["name","count"],"additionalProperties":false}`)
		for range 3 {
			body := chatRequest(srv.Model, "a name and a count, please", false, map[string]any{"num_predict": 500})
			body["format"] = schema
			resp := chat(t, srv, body)
			var got struct {
				Name  *string `json:"name"`
				Count *int    `json:"count"`
			}
			dec := json.NewDecoder(strings.NewReader(resp.Message.Content))
			dec.DisallowUnknownFields()
			// maxLength counts characters, not bytes: a random model may pick
			// a three-byte character.
			if err := dec.Decode(&got); err != nil || got.Name == nil || got.Count == nil || utf8.RuneCountInString(*got.Name) > 16 {
				t.Errorf("reply %q (%s) does not match the schema: %v", resp.Message.Content, resp.DoneReason, err)
			}
		}
	})

	t.Run("tools accepted and rendered", func(t *testing.T) {
		tool := json.RawMessage(`{"type":"function","function":{"name":"read_file","description":"Read a file of the workspace",` +
			`"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}`)
		plain := chat(t, srv, chatRequest(srv.Model, "read it", false, map[string]any{"num_predict": 1}))
		body := chatRequest(srv.Model, "read it", false, map[string]any{"num_predict": 1})
		body["tools"] = []json.RawMessage{tool}
		with := chat(t, srv, body)
		// The definition is rendered into the system turn, so the prompt
		// grows by at least its JSON (one token per byte).
		if grew := with.PromptEvalCount - plain.PromptEvalCount; grew < len(tool)/2 {
			t.Errorf("prompt grew by %d tokens with a %d-byte tool definition", grew, len(tool))
		}
	})

	t.Run("tool calls in the history rendered", func(t *testing.T) {
		call := map[string]any{"function": map[string]any{"name": "read_file", "arguments": map[string]any{"path": "notes/a-long-file-name.md"}}}
		history := func(withCall bool) map[string]any {
			assistant := map[string]any{"role": "assistant", "content": ""}
			if withCall {
				assistant["tool_calls"] = []any{call}
			}
			return map[string]any{
				"model": srv.Model,
				"messages": []map[string]any{
					{"role": "user", "content": "read it"},
					assistant,
					{"role": "tool", "tool_name": "read_file", "content": "the file's text"},
				},
				"options": map[string]any{"num_predict": 1},
			}
		}
		without, with := chat(t, srv, history(false)), chat(t, srv, history(true))
		// <tool_call>{"name": "read_file", "arguments": {...}}</tool_call> is about 90 bytes.
		grew := with.PromptEvalCount - without.PromptEvalCount
		t.Logf("a tool call in the history adds %d prompt tokens", grew)
		if grew < 60 {
			t.Errorf("the prompt grew by %d tokens with a tool call in the history, want the rendered call", grew)
		}
	})

	t.Run("missing model", func(t *testing.T) {
		for _, path := range []string{"/api/chat", "/api/show"} {
			status, reply := post(t, srv.URL+path, chatRequest("no-such-model", "hi", false, nil))
			if status != http.StatusNotFound || !bytes.Contains(reply, []byte("not found")) {
				t.Errorf("%s of a missing model: %d %s, want 404 ... not found", path, status, reply)
			}
		}
	})

	t.Run("pull of a missing model", func(t *testing.T) {
		before := srv.RegistryRequests()
		status, reply := post(t, srv.URL+"/api/pull", map[string]any{"model": srv.MissingModel("no-such-model"), "stream": false})
		t.Logf("/api/pull of a missing model: %d %s", status, reply)
		var answer struct{ Error string }
		if err := json.Unmarshal(reply, &answer); err != nil {
			t.Fatal(err)
		}
		if status == http.StatusOK || !strings.Contains(answer.Error, "manifest") {
			t.Errorf("pull of a missing model: %d %s, want a failure about the manifest", status, reply)
		}
		if srv.RegistryRequests() == before {
			t.Error("the pull never asked the test registry")
		}
	})
}

// TestParallelServer checks that NumParallel reaches the server: two chats
// at once both succeed.
func TestParallelServer(t *testing.T) {
	srv := Start(t, Options{NumParallel: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			status, reply, err := postJSON(t.Context(), srv.URL+"/api/chat", chatRequest(srv.Model, "hi", false, map[string]any{"num_predict": 50}))
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("status %d: %s", status, reply)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	log, err := os.ReadFile(srv.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte("OLLAMA_NUM_PARALLEL:2")) {
		t.Error("the server's config line does not show OLLAMA_NUM_PARALLEL:2")
	}
}

// TestStopLeavesNoProcess checks that Stop ends the server and its runner.
func TestStopLeavesNoProcess(t *testing.T) {
	srv := Start(t, Options{})
	chat(t, srv, chatRequest(srv.Model, "hi", false, map[string]any{"num_predict": 1})) // loads a runner
	members, err := GroupMembers(srv.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if len(members) < 2 {
		t.Fatalf("the server's group has %v, want the server and a runner", members)
	}
	if err := srv.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, pid := range members {
		stat, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "stat"))
		if err != nil {
			continue // gone
		}
		if state, _, ok := parseStat(stat); !ok || state != 'Z' {
			t.Errorf("process %d is still alive after Stop: %s", pid, stat)
		}
	}
	if err := srv.Stop(t.Context()); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}
