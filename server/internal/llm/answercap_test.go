package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// peakHeap samples the heap in use while f runs and returns the highest
// figure seen: the memory a runaway peer made icm hold.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var (
		mu   sync.Mutex
		peak uint64
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	f()
	close(stop)
	<-done
	sample()
	return peak
}

// backends runs a test against both clients on one scripted server.
func backends(t *testing.T, srv *ollamatest.Server) map[string]Client {
	return map[string]Client{
		"ollama": newTestClient(t, srv.URL(), newFakeTime(), WithRetry(0, 1)),
		"openai": newTestOpenAI(t, srv.URL(), newFakeTime(), WithRetry(0, 1)),
	}
}

// A model server that streams forever (data keeps coming, the answer
// never finishes) must not make the client buffer without limit: past the
// answer cap the call ends, marked incomplete, with a bounded heap.
func TestEndlessStreamStopsAtTheAnswerCap(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.Default(ollamatest.Flood("word ", 0))
	for name, c := range backends(t, srv) {
		t.Run(name, func(t *testing.T) {
			// A hang detector, not a speed goal: the cap ends the call in
			// milliseconds, an unbounded reader only at this deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var resp *ChatResponse
			var err error
			peak := peakHeap(func() {
				resp, err = c.Chat(ctx, ChatRequest{Messages: userMsg("hi"), Options: Options{MaxOutput: 256}, OnDelta: func(Delta) {}})
			})
			if ctx.Err() != nil {
				t.Fatalf("the call ran until the test's deadline (%v): nothing bounds an endless stream", err)
			}
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if !resp.Incomplete {
				t.Errorf("an answer cut at the cap came back complete (done reason %q, %d bytes)", resp.DoneReason, len(resp.Message.Content))
			}
			if peak > 100<<20 {
				t.Errorf("peak heap %d MB while reading an endless stream, want under 100 MB", peak>>20)
			}
		})
	}
}

// An answer far longer than max_output allows, even one the server calls
// finished (done_reason "stop"), is not a finished answer: streamed or
// not, it comes back incomplete so nothing saves it as an output.
func TestOverlongAnswerIsIncompleteEvenWhenTheServerSaysStop(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	// 200,000 words for an answer of at most 128 tokens.
	srv.Default(ollamatest.Flood("word ", 200000))
	for name, c := range backends(t, srv) {
		for _, stream := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/whole", true: "/stream"}[stream], func(t *testing.T) {
				req := ChatRequest{Messages: userMsg("hi"), Options: Options{MaxOutput: 128}}
				if stream {
					req.OnDelta = func(Delta) {}
				}
				resp, err := c.Chat(context.Background(), req)
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				if !resp.Incomplete {
					t.Errorf("a %d-byte answer for max_output 128 came back complete (done reason %q)", len(resp.Message.Content), resp.DoneReason)
				}
				if len(resp.Message.Content) > 1<<20 {
					t.Errorf("the client kept %d bytes of an answer capped at 128 tokens", len(resp.Message.Content))
				}
			})
		}
	}
}

// A server that keeps sending, slowly enough that neither the idle
// watchdog nor the answer cap ever fires, is stopped by the total
// deadline, streamed or not, and the call is not tried again (it would
// take as long again).
func TestStreamTotalDeadlineHoldsWhileDataFlows(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "whole"}[stream], func(t *testing.T) {
			f := newFake(t)
			f.chat = func(w http.ResponseWriter, r *http.Request, _ *api.ChatRequest, _ int) {
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, `{"message":{"role":"assistant","content":"`)
				}
				for r.Context().Err() == nil {
					if stream {
						writeLine(w, deltaChunk("word "))
					} else {
						_, _ = io.WriteString(w, "word ")
						w.(http.Flusher).Flush()
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			o := newTestClient(t, f.srv.URL, newFakeTime(), WithStreamDeadline(300*time.Millisecond), WithStreamTimeouts(time.Minute, time.Minute))
			req := ChatRequest{Messages: userMsg("hi"), Options: Options{MaxOutput: 1 << 20}}
			if stream {
				req.OnDelta = func(Delta) {}
			}
			_, err := o.Chat(context.Background(), req)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Error(), "took longer than 300 ms") {
				t.Fatalf("Chat = %v, want the total deadline", err)
			}
			if n := len(f.chatCalls()); n != 1 {
				t.Errorf("%d attempts, want 1: a total deadline is not retried", n)
			}
		})
	}
}

// TestAnswerCapNeverOverflows: the cap of any max_output is positive and
// at least the room asked for, however large (a setting that slips past
// validation, a server's own figure). Failed before: max_output =
// 9e18 overflowed the byte cap to a negative number, so every answer was
// "cut off" at its first byte.
func TestAnswerCapNeverOverflows(t *testing.T) {
	for _, n := range []int{1, 4096, 1 << 24, 1 << 40, 9e18, int(^uint(0) >> 1)} {
		c := capFor(n)
		if c.tokens < min(n, 1<<24) || c.bytes <= 0 || c.wire <= 0 || c.over(1, 1, 1) {
			t.Errorf("capFor(%d) = %+v", n, c)
		}
	}
}
