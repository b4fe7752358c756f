package ollamatest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// runConcurrently starts n calls at once and returns their errors once all end.
func runConcurrently(ctx context.Context, srv *ollamatest.Server, n int) <-chan []error {
	out := make(chan []error, 1)
	go func() {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs[i] = chat(ctx, srv, userCall("item")) })
		}
		wg.Wait()
		out <- errs
	}()
	return out
}

func TestSlotsLimitConcurrency(t *testing.T) {
	tests := []struct {
		slots, calls            int
		wantActive, wantWaiting int
	}{
		{slots: 4, calls: 8, wantActive: 4, wantWaiting: 4},
		{slots: 1, calls: 3, wantActive: 1, wantWaiting: 2},
		{slots: 8, calls: 5, wantActive: 5, wantWaiting: 0},
		{slots: 0, calls: 6, wantActive: 6, wantWaiting: 0}, // no limit
	}
	for _, tt := range tests {
		srv := ollamatest.New(t, ollamatest.Config{Slots: tt.slots})
		hold := make(chan struct{})
		srv.Default(ollamatest.Text("done").WithHold(hold))
		ctx := testCtx(t)
		done := runConcurrently(ctx, srv, tt.calls)

		err := srv.Await(ctx, func(s ollamatest.Stats) bool {
			return s.Active == tt.wantActive && s.Waiting == tt.wantWaiting
		})
		if err != nil {
			t.Fatalf("slots %d: never reached %d active, %d waiting: %+v", tt.slots, tt.wantActive, tt.wantWaiting, srv.Stats())
		}
		close(hold)
		for _, err := range <-done {
			if err != nil {
				t.Errorf("slots %d: %v", tt.slots, err)
			}
		}
		st := srv.Stats()
		if st.PeakActive != tt.wantActive || st.PeakInFlight != tt.calls || st.Active != 0 || st.Waiting != 0 {
			t.Errorf("slots %d: stats %+v, want peak active %d, peak in flight %d", tt.slots, st, tt.wantActive, tt.calls)
		}
		if srv.PeakConcurrency() != st.PeakActive {
			t.Errorf("PeakConcurrency = %d", srv.PeakConcurrency())
		}
	}
}

func TestLatencyIsSpentInTheSlot(t *testing.T) {
	const latency = 30 * time.Millisecond
	srv := ollamatest.New(t, ollamatest.Config{Latency: latency, Slots: 2})
	srv.Default(ollamatest.Text("x").WithDelay(5 * time.Millisecond))
	for _, err := range <-runConcurrently(testCtx(t), srv, 6) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if st := srv.Stats(); st.PeakActive > 2 || st.PeakActive < 1 || st.Chats != 6 {
		t.Errorf("stats = %+v", st)
	}
	// A timer never fires early, so every call spent at least the latency
	// and its delay in its slot; the durations report it.
	for _, rec := range srv.RequestsTo("/api/chat") {
		if rec.Reply.Working < latency+5*time.Millisecond {
			t.Errorf("call %d worked %v", rec.Chat.Seq, rec.Reply.Working)
		}
		if rec.Answered.Before(rec.Received) {
			t.Errorf("call %d answered before received", rec.Chat.Seq)
		}
	}
}

func TestMaxQueueRefusesWith503(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Slots: 1, MaxQueue: 1})
	hold := make(chan struct{})
	srv.Default(ollamatest.Text("ok").WithHold(hold))
	ctx := testCtx(t)
	first := runConcurrently(ctx, srv, 2)
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 1 && s.Waiting == 1 }); err != nil {
		t.Fatal(err)
	}
	_, err := chat(ctx, srv, userCall("one too many"))
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || se.ErrorMessage != "server busy, please try again.  maximum pending requests exceeded" {
		t.Errorf("third call: %#v", err)
	}
	close(hold)
	for _, err := range <-first {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestWaitingCallCanBeCancelled(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Slots: 1})
	hold := make(chan struct{})
	srv.Default(ollamatest.Text("ok").WithHold(hold))
	ctx := testCtx(t)
	first := runConcurrently(ctx, srv, 1)
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	second := runConcurrently(waitCtx, srv, 1)
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Waiting == 1 }); err != nil {
		t.Fatal(err)
	}
	cancel()
	if errs := <-second; !errors.Is(errs[0], context.Canceled) {
		t.Errorf("cancelled waiter: %v", errs[0])
	}
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Waiting == 0 }); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if errs := <-first; errs[0] != nil {
		t.Error(errs[0])
	}
}

func TestRecordingUnderConcurrency(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Slots: 3})
	srv.DefaultFunc(func(r *ollamatest.Request) ollamatest.Turn {
		// A reply function may read the records while calls arrive.
		return ollamatest.Text(r.LastUser() + " seen " + string(rune('0'+min(len(srv.ChatRequests()), 9))))
	})
	ctx := testCtx(t)
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := userCall("call")
			req.Options = map[string]any{"num_ctx": 1000 + i, "temperature": 0.2}
			if _, err := chat(ctx, srv, req); err != nil {
				t.Error(err)
			}
			_ = srv.Requests()
			_ = srv.Stats()
		})
	}
	wg.Wait()
	// A call returns with the answer's last byte, maybe before the server
	// has recorded its status.
	if err := srv.AwaitAnswered(ctx); err != nil {
		t.Fatal(err)
	}

	reqs := srv.ChatRequests()
	if len(reqs) != n || srv.Stats().Requests != n {
		t.Fatalf("recorded %d chat calls, %d requests", len(reqs), srv.Stats().Requests)
	}
	seen := map[int]bool{}
	for i, r := range reqs {
		if r.Seq != i+1 {
			t.Errorf("call %d has Seq %d", i, r.Seq)
		}
		seen[r.NumCtx()] = true
		if temp, ok := r.Options["temperature"].(float64); !ok || temp != 0.2 {
			t.Errorf("temperature = %v", r.Options["temperature"])
		}
	}
	for i := range n {
		if !seen[1000+i] {
			t.Errorf("num_ctx %d not recorded", 1000+i)
		}
	}
	for _, rec := range srv.Requests() {
		if rec.Method != "POST" || rec.Path != "/api/chat" || rec.Status != 200 || rec.Answered.IsZero() || len(rec.Body) == 0 {
			t.Errorf("record = %v", rec)
		}
	}
}

// TestAwaitAnsweredWaitsForTheRecord: a request being answered is open,
// with no status yet; once its client has the answer, AwaitAnswered
// returns when the record is complete.
func TestAwaitAnsweredWaitsForTheRecord(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	hold := make(chan struct{})
	srv.Default(ollamatest.Text("done").WithHold(hold))
	ctx := testCtx(t)
	done := make(chan error, 1)
	go func() {
		_, err := chat(ctx, srv, userCall("hi"))
		done <- err
	}()
	if err := srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		t.Fatal(err)
	}
	if st, rec := srv.Stats(), srv.Requests()[0]; st.Open != 1 || rec.Status != 0 || !rec.Answered.IsZero() {
		t.Errorf("while answering: open %d, record %v", st.Open, rec)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := srv.AwaitAnswered(ctx); err != nil {
		t.Fatal(err)
	}
	if st, rec := srv.Stats(), srv.Requests()[0]; st.Open != 0 || rec.Status != 200 || rec.Answered.IsZero() {
		t.Errorf("once answered: open %d, record %v", st.Open, rec)
	}
}
