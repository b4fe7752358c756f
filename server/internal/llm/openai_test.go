package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// newTestOpenAI returns an OpenAI-compatible client for the scripted
// server's /v1 front, with the same fake clock as newTestClient.
func newTestOpenAI(t *testing.T, url string, clock *fakeTime, opts ...Option) *OpenAI {
	t.Helper()
	base := []Option{
		WithBaseURL(url + "/v1"),
		WithModel("tiny"),
		WithSleep(clock.Sleep),
		WithClock(clock.Now),
		WithJitter(func(time.Duration) time.Duration { return 0 }),
		WithBackoff(time.Second, 16*time.Second),
		WithRetry(time.Hour, 6),
	}
	o, err := NewOpenAI(append(append([]Option{WithPermit(testPermit)}, base...), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOpenAIToolCallRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "stream"}[stream], func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{})
			srv.On(ollamatest.HasToolResult("search")).Reply(ollamatest.Text("found it"))
			srv.On(ollamatest.OffersTool("search")).Reply(ollamatest.Calls(
				ollamatest.Call("search", map[string]any{"query": "icm", "filters": map[string]any{"site": "example.org"}})))
			o := newTestOpenAI(t, srv.URL(), newFakeTime())
			tools := []Tool{{Name: "search", Description: "Search", Parameters: json.RawMessage(searchSchema)}}
			msgs := userMsg("look it up")
			var deltas []string
			req := ChatRequest{Messages: msgs, Tools: tools}
			if stream {
				req.OnDelta = func(d Delta) { deltas = append(deltas, d.Content) }
			}
			resp, err := o.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.Message.ToolCalls
			want := map[string]any{"query": "icm", "filters": map[string]any{"site": "example.org"}}
			if len(calls) != 1 || calls[0].Name != "search" || !reflect.DeepEqual(calls[0].Arguments, want) || calls[0].ID == "" {
				t.Fatalf("tool calls %+v", calls)
			}
			if resp.DoneReason != "tool_calls" || resp.PromptTokens == 0 || resp.OutputTokens == 0 {
				t.Errorf("done %q, counts %d/%d", resp.DoneReason, resp.PromptTokens, resp.OutputTokens)
			}
			msgs = append(msgs, resp.Message, Message{Role: RoleTool, ToolName: "search", ToolCallID: calls[0].ID, Content: "result"})
			req.Messages = msgs
			resp, err = o.Chat(context.Background(), req)
			if err != nil || resp.Message.Content != "found it" {
				t.Fatalf("second turn: %v %+v", err, resp)
			}
			if stream && strings.Join(deltas, "") != "found it" {
				t.Errorf("deltas %q", deltas)
			}
			last := srv.LastChat()
			if last.Path != "/v1/chat/completions" || last.Streaming() != stream {
				t.Errorf("path %s, streaming %v", last.Path, last.Streaming())
			}
			// The tool result named the call it answers, so the server
			// could tell which tool it came from.
			if res := last.ToolResults(); len(res) != 1 || res[0].ToolName != "search" || res[0].ToolCallID != calls[0].ID {
				t.Errorf("tool results as the server saw them: %+v", res)
			}
			if n, _ := last.IntOption("num_predict"); n <= 0 {
				t.Errorf("max_tokens not sent: %v", last.Options)
			}
		})
	}
}

func TestOpenAIStreamsThinkingAndContent(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Default(ollamatest.Think("let me see", "the answer is four"))
	o := newTestOpenAI(t, srv.URL(), newFakeTime())
	var content, thinking strings.Builder
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("2+2?"), OnDelta: func(d Delta) {
		content.WriteString(d.Content)
		thinking.WriteString(d.Thinking)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "the answer is four" || resp.Message.Thinking != "let me see" {
		t.Errorf("message %+v", resp.Message)
	}
	if content.String() != resp.Message.Content || thinking.String() != resp.Message.Thinking {
		t.Errorf("deltas %q / %q", content.String(), thinking.String())
	}
}

func TestOpenAIRequestShape(t *testing.T) {
	temp, off := 0.2, false
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	cases := []struct {
		name   string
		req    ChatRequest
		format string
		think  string
	}{
		{"schema", ChatRequest{Format: schema}, string(schema), ""},
		{"json", ChatRequest{Format: json.RawMessage(`"json"`)}, `"json"`, ""},
		{"think off", ChatRequest{Think: &off}, "", "false"},
		{"temperature", ChatRequest{Options: Options{Temperature: &temp}}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{})
			srv.Default(ollamatest.JSON(map[string]any{"ok": true}))
			o := newTestOpenAI(t, srv.URL(), newFakeTime())
			tc.req.Messages = userMsg("hi")
			if _, err := o.Chat(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			got := srv.LastChat()
			if string(got.Format) != tc.format {
				t.Errorf("format %s, want %s", got.Format, tc.format)
			}
			think := ""
			if on, set := got.ThinkRequested(); set {
				think = map[bool]string{true: "true", false: "false"}[on]
			}
			if think != tc.think {
				t.Errorf("think %q, want %q", think, tc.think)
			}
			if tc.req.Options.Temperature != nil && got.Options["temperature"] != temp {
				t.Errorf("temperature %v", got.Options["temperature"])
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	long := strings.Repeat("word ", 4000)
	cases := []struct {
		name  string
		model ollamatest.Model
		opts  []Option
		turns []ollamatest.Turn
		msg   string
		kind  Kind
		// chats is how many chat calls must reach the server.
		chats    int
		attempts int
	}{
		{name: "model missing", model: ollamatest.Model{Name: "other"}, turns: []ollamatest.Turn{ollamatest.Text("x")}, msg: "hi", kind: KindModelMissing, chats: 1, attempts: 1},
		{name: "prompt over the listed window", model: ollamatest.Model{Name: "tiny", ContextLength: 1024}, turns: []ollamatest.Turn{ollamatest.Text("x")}, msg: long, kind: KindPromptTooLong, chats: 0},
		{name: "prompt over the configured window", model: ollamatest.Model{Name: "tiny", ContextLength: 40960}, opts: []Option{WithContextLength(1024)}, turns: []ollamatest.Turn{ollamatest.Text("x")}, msg: long, kind: KindPromptTooLong, chats: 0},
		// Told a larger window than the server has: the server refuses.
		{name: "server refuses", model: ollamatest.Model{Name: "tiny", ContextLength: 2048}, opts: []Option{WithContextLength(40960), WithMaxOutput(256)}, turns: []ollamatest.Turn{ollamatest.Text("x")}, msg: long, kind: KindTruncated, chats: 1, attempts: 1},
		{name: "busy then fine", model: ollamatest.Model{Name: "tiny"}, turns: []ollamatest.Turn{ollamatest.Fail(503, ""), ollamatest.Text("ok")}, msg: "hi", chats: 2, attempts: 2},
		{name: "bad request", model: ollamatest.Model{Name: "tiny"}, turns: []ollamatest.Turn{ollamatest.Fail(400, "nope")}, msg: "hi", kind: KindBadRequest, chats: 1, attempts: 1},
		{name: "error mid-stream", model: ollamatest.Model{Name: "tiny"}, turns: []ollamatest.Turn{ollamatest.StreamFailure("partial answer", "boom")}, msg: "hi", kind: KindStream, chats: 1, attempts: 1},
		{name: "dropped every time", model: ollamatest.Model{Name: "tiny"}, turns: []ollamatest.Turn{ollamatest.Drop("")}, msg: "hi", kind: KindUnavailable, chats: 6, attempts: 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{tc.model}, AllowUnscripted: true})
			srv.On(ollamatest.Any()).Reply(tc.turns...)
			o := newTestOpenAI(t, srv.URL(), newFakeTime(), tc.opts...)
			resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg(tc.msg), OnDelta: func(Delta) {}})
			if tc.kind == KindOther && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tc.kind != KindOther {
				if err == nil {
					t.Fatalf("no error; answer %+v", resp)
				}
				if KindOf(err) != tc.kind {
					t.Fatalf("kind %v (%v), want %v", KindOf(err), err, tc.kind)
				}
				if hintOf(err) == "" {
					t.Errorf("no hint for %v", err)
				}
			}
			if n := len(srv.RequestsTo("/v1/chat/completions")); n != tc.chats {
				t.Errorf("%d chat requests, want %d", n, tc.chats)
			}
			if tc.kind == KindOther && resp.Attempts != tc.attempts {
				t.Errorf("attempts %d, want %d", resp.Attempts, tc.attempts)
			}
		})
	}
}

func TestOpenAIWindowFromModelList(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 6000}}})
	srv.Default(ollamatest.Length("cut"))
	o := newTestOpenAI(t, srv.URL(), newFakeTime())
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.NumCtx != 6000 || !resp.Incomplete || resp.DoneReason != "length" {
		t.Errorf("window %d, incomplete %v, done %q", resp.NumCtx, resp.Incomplete, resp.DoneReason)
	}
	if _, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("again")}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.RequestsTo("/v1/models")); n != 1 {
		t.Errorf("%d model list requests, want 1 (cached)", n)
	}
	if err := o.Pull(context.Background(), "tiny", nil); KindOf(err) != KindUnsupported {
		t.Errorf("pull: %v", err)
	}
}

func TestOpenAISendsTheKeyAndNoModelList(t *testing.T) {
	// A gateway with no /models route: the window stays unknown, the call
	// still goes, and the key travels as a bearer token.
	var auth, paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		paths = append(paths, r.URL.Path)
		if r.URL.Path != "/gw/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"model":"m","choices":[{"message":{"content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	o, err := NewOpenAI(WithPermit(testPermit), WithBaseURL(srv.URL+"/gw/v1"), WithModel("m"), WithAPIKey("sk-test"), WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "hello" || resp.NumCtx != 0 || resp.PromptTokens != 5 {
		t.Errorf("response %+v", resp)
	}
	// The model list, the tokenize probe (at the server's root, absent
	// here) and the call, each with the key.
	if want := []string{"/gw/v1/models", "/gw/tokenize", "/gw/v1/chat/completions"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("requests to %q, want %q", paths, want)
	}
	for i, a := range auth {
		if a != "Bearer sk-test" {
			t.Errorf("request %d to %s: authorization %q", i, paths[i], a)
		}
	}
}

func TestOpenAIBaseURL(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: "http://127.0.0.1:8000/v1", want: "http://127.0.0.1:8000/v1"},
		{in: "127.0.0.1:8000", want: "http://127.0.0.1:8000/v1"},
		{in: "https://gw.example/openai/v1/", want: "https://gw.example/openai/v1"},
		{in: "", err: "base_url is empty"},
		{in: "ftp://x", err: "http or https"},
		{in: "http://user:pw@host/v1", err: "api_key_env"},
	}
	for _, tc := range cases {
		u, err := OpenAIBaseURL(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case u.String() != tc.want:
			t.Errorf("%q -> %s, want %s", tc.in, u, tc.want)
		}
	}
}
