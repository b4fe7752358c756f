package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// deltas collects what OnDelta receives.
type deltas struct{ got []Delta }

func (d *deltas) on(x Delta) { d.got = append(d.got, x) }

func (d *deltas) text() string {
	var b strings.Builder
	for _, x := range d.got {
		if x.Restart {
			b.WriteString("|restart|")
		}
		b.WriteString(x.Content)
	}
	return b.String()
}

func TestStreamingDeliversDeltasAndKeepsThinkingApart(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, _ int) {
		writeLine(w, map[string]any{"message": map[string]any{"role": "assistant", "thinking": "let me see"}})
		writeLine(w, deltaChunk("Hel"))
		writeLine(w, deltaChunk("lo"))
		writeLine(w, doneChunk("", "stop", promptCount(req, nil)))
	}
	o := newTestClient(t, f.srv.URL, newFakeTime())
	var d deltas
	think := true
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), Think: &think, OnDelta: d.on})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Hello" || resp.Message.Thinking != "let me see" {
		t.Errorf("content %q thinking %q", resp.Message.Content, resp.Message.Thinking)
	}
	if len(d.got) != 3 || d.got[0].Thinking != "let me see" || d.text() != "Hello" {
		t.Errorf("deltas %+v", d.got)
	}
	req := f.chatCalls()[0]
	if req.Stream == nil || !*req.Stream || req.Think == nil || req.Think.Value != true {
		t.Errorf("stream %v think %v, want both true", req.Stream, req.Think)
	}
}

func TestErrorMidStream(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, _ *http.Request, _ *api.ChatRequest, _ int) {
		writeLine(w, deltaChunk("partial"))
		writeLine(w, map[string]string{"error": "an error was encountered while running the model: boom"})
	}
	o := newTestClient(t, f.srv.URL, newFakeTime())
	var d deltas
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindStream {
		t.Fatalf("err = %v, want KindStream", err)
	}
	if !strings.Contains(e.Msg, "boom") || len(f.chatCalls()) != 1 {
		t.Errorf("msg %q after %d calls; want the server's error after one call (a delta was delivered)", e.Msg, len(f.chatCalls()))
	}
}

func TestErrorBeforeAnyDeltaIsRetriedOnce(t *testing.T) {
	cases := []struct {
		name   string
		fails  int
		wantOK bool
	}{
		{"one failure then an answer", 1, true},
		{"failing twice is final", 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, n int) {
				if n < c.fails {
					writeLine(w, map[string]any{"message": map[string]any{"role": "assistant"}})
					writeLine(w, map[string]string{"error": "error parsing tool call"})
					return
				}
				writeLine(w, deltaChunk("ok"))
				writeLine(w, doneChunk("", "stop", promptCount(req, nil)))
			}
			o := newTestClient(t, f.srv.URL, newFakeTime())
			var d deltas
			_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
			if (err == nil) != c.wantOK {
				t.Fatalf("err = %v, want success %v", err, c.wantOK)
			}
			if got := len(f.chatCalls()); got != 2 {
				t.Errorf("%d calls, want 2", got)
			}
			if !c.wantOK && KindOf(err) != KindStream {
				t.Errorf("kind %v, want KindStream", KindOf(err))
			}
		})
	}
}

func TestStreamEndingWithoutDone(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, _ *http.Request, _ *api.ChatRequest, _ int) {
		writeLine(w, deltaChunk("half an ans"))
	}
	o := newTestClient(t, f.srv.URL, newFakeTime())
	var d deltas
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	if KindOf(err) != KindStream || len(f.chatCalls()) != 1 {
		t.Fatalf("err = %v after %d calls, want KindStream after one", err, len(f.chatCalls()))
	}
}

func TestStalledStreamFailsOnTheIdleLimit(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, r *http.Request, _ *api.ChatRequest, _ int) {
		writeLine(w, deltaChunk("start"))
		<-r.Context().Done() // never another byte
	}
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithStreamTimeouts(time.Minute, 30*time.Millisecond))
	var d deltas
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnavailable || !strings.Contains(e.Msg, "stalled") {
		t.Fatalf("err = %v, want KindUnavailable saying the stream stalled", err)
	}
	if len(f.chatCalls()) != 1 {
		t.Errorf("%d calls; a stream that delivered text must not be retried", len(f.chatCalls()))
	}
}

func TestFirstByteLimitIsSeparateFromIdle(t *testing.T) {
	f := newFake(t)
	f.chat = func(w http.ResponseWriter, r *http.Request, _ *api.ChatRequest, _ int) {
		<-r.Context().Done() // a model that never finishes loading
	}
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithStreamTimeouts(30*time.Millisecond, time.Hour), WithRetry(0, 1))
	var d deltas
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: d.on})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnavailable || !strings.Contains(e.Msg, "no answer within 30 ms") {
		t.Fatalf("err = %v, want KindUnavailable saying no answer came", err)
	}
	if !strings.Contains(e.Hint, "loading") {
		t.Errorf("hint %q should mention model loading", e.Hint)
	}
}

func TestDoneReasonLengthIsIncomplete(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, reason := range []string{"length", "stop"} {
			f := newFake(t)
			f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, _ int) {
				writeLine(w, doneChunk("cut off mid", reason, promptCount(req, nil)))
			}
			o := newTestClient(t, f.srv.URL, newFakeTime())
			req := ChatRequest{Messages: userMsg("hi")}
			var d deltas
			if stream {
				req.OnDelta = d.on
			}
			resp, err := o.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Incomplete != (reason == "length") || resp.DoneReason != reason {
				t.Errorf("stream %v reason %s: Incomplete %v", stream, reason, resp.Incomplete)
			}
		}
	}
}

// cutThenFine reports the prompt as filling the window on the first
// `cuts` calls, then answers normally.
func cutThenFine(cuts int) func(http.ResponseWriter, *http.Request, *api.ChatRequest, int) {
	return func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, n int) {
		count := promptCount(req, nil)
		if n < cuts {
			count = int(req.Options["num_ctx"].(float64))
		}
		if req.Stream != nil && *req.Stream {
			writeLine(w, deltaChunk("answer"))
			writeLine(w, doneChunk("", "stop", count))
			return
		}
		writeJSON(w, 200, doneChunk("answer", "stop", count))
	}
}

func TestTruncationRetriesOnceWithALargerWindow(t *testing.T) {
	f := newFake(t)
	f.show = byteModel(32768)
	f.chat = cutThenFine(1)
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(1000))
	var d deltas
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg(strings.Repeat("x", 1000)), OnDelta: d.on})
	if err != nil {
		t.Fatal(err)
	}
	calls := f.chatCalls()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	first, second := numOpt(calls[0].Options, "num_ctx"), numOpt(calls[1].Options, "num_ctx")
	if first != 2048 || second != 4096 || resp.NumCtx != 4096 {
		t.Errorf("windows %d then %d (response %d), want 2048 then 4096", first, second, resp.NumCtx)
	}
	if d.text() != "answer|restart|answer" || resp.Message.Content != "answer" {
		t.Errorf("deltas %q content %q: the caller must be told the first answer is void", d.text(), resp.Message.Content)
	}
	if resp.Attempts != 2 {
		t.Errorf("attempts %d, want 2", resp.Attempts)
	}
}

func TestTruncationThatPersistsFails(t *testing.T) {
	cases := []struct {
		name     string
		modelMax int
		numCtx   int
		calls    int
		hint     string
	}{
		{"grown once, still cut", 32768, 0, 2, "section-scope"},
		{"window already the model's", 2048, 0, 1, "larger window"},
		{"window fixed by the request", 32768, 3000, 1, "raise [model] num_ctx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.show = byteModel(c.modelMax)
			f.chat = cutThenFine(99)
			o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(500))
			_, err := o.Chat(context.Background(), ChatRequest{Stage: "04-review", Messages: userMsg(strings.Repeat("x", 1000)),
				Options: Options{NumCtx: c.numCtx}})
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindTruncated {
				t.Fatalf("err = %v, want KindTruncated", err)
			}
			if len(f.chatCalls()) != c.calls {
				t.Errorf("%d calls, want %d", len(f.chatCalls()), c.calls)
			}
			if e.Evaluated != e.Window || e.Estimate != 1012 || e.Stage != "04-review" {
				t.Errorf("evaluated %d window %d estimate %d stage %q", e.Evaluated, e.Window, e.Estimate, e.Stage)
			}
			for _, s := range []string{"04-review", "1012", "cut"} {
				if !strings.Contains(e.Error(), s) {
					t.Errorf("message %q lacks %q", e.Error(), s)
				}
			}
			if !strings.Contains(e.Hint, c.hint) {
				t.Errorf("hint %q lacks %q", e.Hint, c.hint)
			}
		})
	}
}

func TestServerRefusingTheWindowGrowsIt(t *testing.T) {
	f := newFake(t)
	f.show = byteModel(32768)
	f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, n int) {
		if n == 0 {
			writeJSON(w, 400, map[string]string{"error": "the input length exceeds the context length"})
			return
		}
		writeJSON(w, 200, doneChunk("ok", "stop", promptCount(req, nil)))
	}
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(500))
	resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("short")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.NumCtx != 4096 || len(f.chatCalls()) != 2 {
		t.Errorf("window %d after %d calls, want 4096 after 2", resp.NumCtx, len(f.chatCalls()))
	}
}

func TestServerRefusingEveryWindowIsTruncated(t *testing.T) {
	f := newFake(t)
	f.show = byteModel(2048)
	f.chat = status(400, `{"error":"the input length exceeds the context length"}`)
	o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(500))
	_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("short")})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindTruncated || e.Status != 400 || !strings.Contains(e.Msg, "refused") {
		t.Fatalf("err = %v, want KindTruncated saying the server refused the prompt", err)
	}
}

func TestLowPromptCount(t *testing.T) {
	cases := []struct {
		name  string
		count int
		ratio float64
		ok    bool
	}{
		{"about half the window kept", 300, DefaultLowCountRatio, false},
		{"not reported", 0, DefaultLowCountRatio, true},
		{"check turned off", 300, 0, true},
		{"close to the estimate", 980, DefaultLowCountRatio, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.show = byteModel(2048) // no room to grow: a cut fails at once
			f.chat = func(w http.ResponseWriter, _ *http.Request, _ *api.ChatRequest, _ int) {
				writeJSON(w, 200, doneChunk("ok", "stop", c.count))
			}
			o := newTestClient(t, f.srv.URL, newFakeTime(), WithMaxOutput(500), WithLowCountRatio(c.ratio))
			_, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg(strings.Repeat("y", 1000))})
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want success %v", err, c.ok)
			}
			if !c.ok && KindOf(err) != KindTruncated {
				t.Errorf("kind %v, want KindTruncated", KindOf(err))
			}
		})
	}
}

func TestEmptyAnswerWithToolsIsALostToolCall(t *testing.T) {
	cases := []struct {
		name  string
		empty int // how many calls answer empty
		ok    bool
	}{
		{"once, then a real answer", 1, true},
		{"twice", 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.chat = func(w http.ResponseWriter, _ *http.Request, req *api.ChatRequest, n int) {
				content := "a real answer"
				if n < c.empty {
					content = ""
				}
				d := doneChunk(content, "stop", promptCount(req, nil))
				d["eval_count"] = 40
				writeJSON(w, 200, d)
			}
			o := newTestClient(t, f.srv.URL, newFakeTime())
			resp, err := o.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"),
				Tools: []Tool{{Name: "read", Parameters: json.RawMessage(`{"type":"object"}`)}}})
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want success %v", err, c.ok)
			}
			if c.ok && resp.Message.Content != "a real answer" {
				t.Errorf("content %q", resp.Message.Content)
			}
			if !c.ok && (KindOf(err) != KindStream || !strings.Contains(err.Error(), "no tool call")) {
				t.Errorf("err = %v, want KindStream about a lost tool call", err)
			}
			if len(f.chatCalls()) != 2 {
				t.Errorf("%d calls, want 2", len(f.chatCalls()))
			}
		})
	}
}
