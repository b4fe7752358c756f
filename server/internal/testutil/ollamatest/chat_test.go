package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestChatStreamingAndNot(t *testing.T) {
	tests := []struct {
		name       string
		stream     *bool
		wantChunks int // chunks before the done one
	}{
		{"stream absent streams", nil, 3},
		{"stream true streams", boolPtr(true), 3},
		{"stream false answers once", boolPtr(false), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{})
			srv.Default(ollamatest.Text("Hello big world"))
			req := userCall("hi")
			req.Stream = tt.stream
			res, err := chat(testCtx(t), srv, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.content != "Hello big world" {
				t.Errorf("content = %q", res.content)
			}
			if got := len(res.chunks) - 1; got != tt.wantChunks {
				t.Errorf("chunks before done = %d, want %d", got, tt.wantChunks)
			}
			f := res.final
			if !f.Done || f.DoneReason != "stop" || f.Model != "tiny" || f.Message.Role != "assistant" {
				t.Errorf("final chunk = %+v", f)
			}
			if want := srv.PromptTokens(srv.LastChat()); f.PromptEvalCount != want || want == 0 {
				t.Errorf("prompt_eval_count = %d, want %d", f.PromptEvalCount, want)
			}
			if f.EvalCount != 4 { // 15 bytes / 4, rounded up
				t.Errorf("eval_count = %d, want 4", f.EvalCount)
			}
			if f.TotalDuration <= 0 || f.LoadDuration <= 0 || f.PromptEvalDuration <= 0 || f.EvalDuration <= 0 {
				t.Errorf("durations missing: %+v", f.Metrics)
			}
		})
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "streaming", false: "not streaming"}[stream], func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{})
			srv.On(ollamatest.HasToolResult("search")).Reply(ollamatest.Text("Go is a language."))
			srv.On(ollamatest.OffersTool("search")).Reply(ollamatest.Calls(
				ollamatest.Call("search", map[string]any{"query": "go", "limit": 3}),
			))
			ctx := testCtx(t)

			var tools api.Tools
			if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"search","description":"web search",
				"parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}}]`), &tools); err != nil {
				t.Fatal(err)
			}
			req := userCall("what is go?")
			req.Tools = tools
			req.Stream = &stream
			first, err := chat(ctx, srv, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.calls) != 1 {
				t.Fatalf("tool calls = %+v", first.calls)
			}
			call := first.calls[0]
			if call.Function.Name != "search" || call.ID == "" {
				t.Errorf("call = %+v", call)
			}
			if q, _ := call.Function.Arguments.Get("query"); q != "go" {
				t.Errorf("query argument = %v", q)
			}
			if n, _ := call.Function.Arguments.Get("limit"); n != float64(3) {
				t.Errorf("limit argument = %v", n)
			}

			req.Messages = append(req.Messages,
				api.Message{Role: "assistant", ToolCalls: first.calls},
				api.Message{Role: "tool", ToolName: "search", ToolCallID: call.ID, Content: "Go: a programming language"},
			)
			second, err := chat(ctx, srv, req)
			if err != nil {
				t.Fatal(err)
			}
			if second.content != "Go is a language." || len(second.calls) != 0 {
				t.Errorf("second answer = %q %+v", second.content, second.calls)
			}
			got := srv.ChatRequests()
			if len(got) != 2 || len(got[1].ToolResults()) != 1 || got[1].ToolResults()[0].ToolCallID != call.ID {
				t.Errorf("recorded tool results = %+v", got[len(got)-1].ToolResults())
			}
			if names := got[0].ToolNames(); len(names) != 1 || names[0] != "search" {
				t.Errorf("offered tools = %v", names)
			}
		})
	}
}

func TestThinking(t *testing.T) {
	plain := ollamatest.Model{Name: "plain", Capabilities: []string{"completion"}}
	tests := []struct {
		name         string
		model        string
		think        *api.ThinkValue
		turn         ollamatest.Turn
		wantThinking string
		wantContent  string
	}{
		{"thinking model, think unset", "tiny", nil, ollamatest.Think("plan", "answer"), "plan", "answer"},
		{"think true", "tiny", &api.ThinkValue{Value: true}, ollamatest.Think("plan", "answer"), "plan", "answer"},
		{"think false drops it", "tiny", &api.ThinkValue{Value: false}, ollamatest.Think("plan", "answer"), "", "answer"},
		{"no thinking capability inlines it", "plain", nil, ollamatest.Think("plan", "answer"), "", "<think>\nplan\n</think>\n\nanswer"},
		{"think tags stay in the content", "tiny", nil, ollamatest.ThinkTags("plan", "answer"), "", "<think>\nplan\n</think>\n\nanswer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny"}, plain}})
			srv.Default(tt.turn)
			req := userCall("think")
			req.Model, req.Think = tt.model, tt.think
			res, err := chat(testCtx(t), srv, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.thinking != tt.wantThinking || res.content != tt.wantContent {
				t.Errorf("thinking %q content %q, want %q %q", res.thinking, res.content, tt.wantThinking, tt.wantContent)
			}
		})
	}
}

func TestFormatAndLength(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"title": "Go", "ok": true}))
	srv.On(ollamatest.LastUserContains("cut")).Reply(ollamatest.Length("half an ans"))
	srv.Default(ollamatest.Text(strings.Repeat("word ", 40)))
	ctx := testCtx(t)

	req := userCall("give json")
	req.Format = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)
	res, err := chat(ctx, srv, req)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Title string
		OK    bool
	}
	if err := json.Unmarshal([]byte(res.content), &v); err != nil || v.Title != "Go" || !v.OK {
		t.Errorf("json answer %q: %v", res.content, err)
	}

	res, err = chat(ctx, srv, userCall("cut"))
	if err != nil {
		t.Fatal(err)
	}
	if res.final.DoneReason != "length" || res.content != "half an ans" {
		t.Errorf("scripted length: %q %q", res.final.DoneReason, res.content)
	}

	req = userCall("long answer please")
	req.Options = map[string]any{"num_predict": 5}
	res, err = chat(ctx, srv, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.final.DoneReason != "length" || res.final.EvalCount != 5 || len(res.content) != 20 {
		t.Errorf("num_predict 5: done_reason %q eval_count %d content %q", res.final.DoneReason, res.final.EvalCount, res.content)
	}
}

func TestTruncationClamp(t *testing.T) {
	tests := []struct {
		name       string
		promptLen  int
		numCtx     any // nil: not sent
		wantCount  int
		wantCutRec bool
	}{
		{"fits the default window", 400, nil, 0, false},
		{"longer than num_ctx is cut to num_ctx", 60000, 512, 512, true},
		{"num_ctx above the model's length is cut at the model's", 60000, 20000, 8192, true},
		{"no num_ctx uses the default 4096", 60000, nil, 4096, true},
		{"fits the asked window", 6000, 2048, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}}})
			srv.Default(ollamatest.Text("ok"))
			req := userCall(long(tt.promptLen))
			if tt.numCtx != nil {
				req.Options = map[string]any{"num_ctx": tt.numCtx}
			}
			res, err := chat(testCtx(t), srv, req)
			if err != nil {
				t.Fatal(err)
			}
			rec := srv.RequestsTo("/api/chat")[0]
			want := tt.wantCount
			if want == 0 {
				want = srv.PromptTokens(rec.Chat)
			}
			if res.final.PromptEvalCount != want {
				t.Errorf("prompt_eval_count = %d, want %d", res.final.PromptEvalCount, want)
			}
			if rec.Reply.Truncated != tt.wantCutRec {
				t.Errorf("recorded truncation = %v", rec.Reply.Truncated)
			}
			if n, ok := tt.numCtx.(int); ok && rec.Chat.NumCtx() != n {
				t.Errorf("recorded num_ctx = %d, want %d", rec.Chat.NumCtx(), n)
			}
		})
	}
}

func TestCountsCanBeScripted(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Default(ollamatest.Text("ok").WithCounts(7, 9))
	res, err := chat(testCtx(t), srv, userCall(long(4000)))
	if err != nil {
		t.Fatal(err)
	}
	if res.final.PromptEvalCount != 7 || res.final.EvalCount != 9 {
		t.Errorf("counts = %d/%d, want 7/9", res.final.PromptEvalCount, res.final.EvalCount)
	}
}

func TestCustomTokenCount(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{CountTokens: func(s string) int { return len(strings.Fields(s)) }})
	srv.Default(ollamatest.Text("one two three"))
	res, err := chat(testCtx(t), srv, userCall("a b c d e"))
	if err != nil {
		t.Fatal(err)
	}
	// "user\na b c d e\n" has six fields.
	if res.final.PromptEvalCount != 6 || res.final.EvalCount != 3 {
		t.Errorf("counts = %d/%d, want 6/3", res.final.PromptEvalCount, res.final.EvalCount)
	}
}

func TestScriptOrder(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	rule := srv.On(ollamatest.LastUserContains("rule")).Reply(ollamatest.Text("from rule"))
	srv.On(ollamatest.LastUserContains("func")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		return ollamatest.Text("call " + r.LastUser())
	})
	srv.Enqueue(ollamatest.Text("q1"), ollamatest.Text("q2"))
	srv.Default(ollamatest.Text("fallback"))
	ctx := testCtx(t)

	for _, step := range []struct{ ask, want string }{
		{"x", "q1"}, {"rule", "from rule"}, {"x", "q2"}, {"func 7", "call func 7"}, {"x", "fallback"}, {"rule", "from rule"},
	} {
		res, err := chat(ctx, srv, userCall(step.ask))
		if err != nil {
			t.Fatal(err)
		}
		if res.content != step.want {
			t.Errorf("ask %q: got %q, want %q", step.ask, res.content, step.want)
		}
	}
	if rule.Hits() != 2 || srv.Pending() != 0 {
		t.Errorf("rule hits %d, pending %d", rule.Hits(), srv.Pending())
	}
	sources := []string{}
	for _, r := range srv.RequestsTo("/api/chat") {
		sources = append(sources, r.Reply.Source)
	}
	if got := strings.Join(sources, ","); got != "queue,rule 1,queue,rule 2,default,rule 1" {
		t.Errorf("sources = %s", got)
	}
}

func TestFailThenSucceed(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*ollamatest.Server)
	}{
		{"reply sequence", func(s *ollamatest.Server) {
			s.On(ollamatest.Any()).Reply(ollamatest.Fail(503, ""), ollamatest.Fail(503, ""), ollamatest.Text("ok"))
		}},
		{"rule limited by times", func(s *ollamatest.Server) {
			s.On(ollamatest.Any()).Times(2).Reply(ollamatest.Fail(503, ""))
			s.Default(ollamatest.Text("ok"))
		}},
		{"queue", func(s *ollamatest.Server) {
			s.Enqueue(ollamatest.Fail(503, ""), ollamatest.Fail(503, ""), ollamatest.Text("ok"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{})
			tt.setup(srv)
			ctx := testCtx(t)
			for i := range 2 {
				_, err := chat(ctx, srv, userCall("hi"))
				var se api.StatusError
				if !errors.As(err, &se) || se.StatusCode != 503 || !strings.Contains(se.ErrorMessage, "server busy") {
					t.Fatalf("call %d: err = %v, want a 503 StatusError", i+1, err)
				}
			}
			res, err := chat(ctx, srv, userCall("hi"))
			if err != nil || res.content != "ok" {
				t.Fatalf("third call: %q, %v", res.content, err)
			}
			if st := srv.Stats(); st.Chats != 3 {
				t.Errorf("chats = %d", st.Chats)
			}
		})
	}
}

func TestStatusFailures(t *testing.T) {
	for _, status := range []int{400, 404, 500, 503} {
		srv := ollamatest.New(t, ollamatest.Config{})
		srv.Default(ollamatest.Fail(status, "scripted"))
		for _, stream := range []bool{true, false} {
			req := userCall("hi")
			req.Stream = &stream
			_, err := chat(testCtx(t), srv, req)
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != status || se.ErrorMessage != "scripted" {
				t.Errorf("status %d stream %v: err = %#v", status, stream, err)
			}
		}
	}
}

func TestStreamErrorSurfaces(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	srv.Default(ollamatest.StreamFailure("partial answer", "model runner crashed"))
	ctx := testCtx(t)

	res, err := chat(ctx, srv, userCall("hi"))
	if err == nil || err.Error() != "model runner crashed" {
		t.Fatalf("streaming: err = %v", err)
	}
	if res.content != "partial answer" || res.final.Done {
		t.Errorf("before the error: %q done=%v", res.content, res.final.Done)
	}

	req := userCall("hi")
	req.Stream = boolPtr(false)
	_, err = chat(ctx, srv, req)
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "model runner crashed" {
		t.Errorf("not streaming: err = %#v", err)
	}
}

func TestDropMidResponse(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := ollamatest.New(t, ollamatest.Config{})
		srv.Default(ollamatest.Drop("one two three four"))
		ctx := testCtx(t)

		// Ollama's client stops quietly when a stream breaks (it does not
		// check the scanner's error): what callers see is a stream without
		// its done chunk. A broken single answer is an error.
		req := userCall("hi")
		req.Stream = &stream
		res, err := chat(ctx, srv, req)
		if stream && (err != nil || res.final.Done || res.content != "one two") {
			t.Errorf("stream: err %v, done %v, content %q; want no done chunk after \"one two\"", err, res.final.Done, res.content)
		}
		if !stream && err == nil {
			t.Errorf("not streaming: no error, got %q", res.content)
		}

		// On the wire the response really is cut: the body ends early.
		body := fmt.Sprintf(`{"model":"tiny","stream":%v,"messages":[{"role":"user","content":"hi"}]}`, stream)
		resp, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("stream %v: reading the body: %v, want unexpected EOF", stream, err)
		}
		if err := srv.AwaitAnswered(ctx); err != nil {
			t.Fatal(err)
		}
		for _, rec := range srv.Requests() {
			if !rec.Aborted || rec.Status != 200 {
				t.Errorf("stream %v: record = %v, want aborted after 200", stream, rec)
			}
		}
	}
}

func TestHangUntilCancelled(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Slots: 1})
	srv.Default(ollamatest.Hang())
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := chat(ctx, srv, userCall("hi"))
		done <- err
	}()
	if err := srv.Await(testCtx(t), func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("hanging call returned early: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if err := srv.Await(testCtx(t), func(s ollamatest.Stats) bool { return s.Active == 0 }); err != nil {
		t.Fatal(err)
	}
}

func TestCloseEndsHangingCalls(t *testing.T) {
	srv, err := ollamatest.Listen("127.0.0.1:0", ollamatest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Default(ollamatest.Hang())
	done := make(chan error, 1)
	go func() {
		_, err := chat(testCtx(t), srv, userCall("hi"))
		done <- err
	}()
	if err := srv.Await(testCtx(t), func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("the hanging call succeeded after Close")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
