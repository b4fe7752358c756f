package llm

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// poolOf builds a pool over scripted servers, each member making one
// attempt per call as FromConfig's do.
func poolOf(t *testing.T, slots int, urls ...string) *Pool {
	t.Helper()
	var members []PoolMember
	for _, u := range urls {
		c, err := NewOllama(WithPermit(testPermit), WithBaseURL(u), WithModel("tiny"), WithRetry(0, 1), WithGetenv(func(string) string { return "" }))
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, PoolMember{Client: c, Slots: slots, Name: u})
	}
	p, err := NewPool(members, WithCooldown(time.Minute, time.Minute), WithPoolBudget(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPoolFillsFreeSlotsFirst(t *testing.T) {
	hold := make(chan struct{})
	a := ollamatest.New(t, ollamatest.Config{Slots: 2})
	b := ollamatest.New(t, ollamatest.Config{Slots: 2})
	for _, s := range []*ollamatest.Server{a, b} {
		s.Default(ollamatest.Text("ok").WithHold(hold))
	}
	p := poolOf(t, 2, a.URL(), b.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Chat(ctx, ChatRequest{Messages: userMsg("hi")}); err != nil {
				errs <- err
			}
		}()
	}
	// Four calls fill both servers' slots; the other two wait in the pool,
	// not in a server's queue.
	full := func(s ollamatest.Stats) bool { return s.Active == 2 }
	if err := a.Await(ctx, full); err != nil {
		t.Fatal(err)
	}
	if err := b.Await(ctx, full); err != nil {
		t.Fatal(err)
	}
	close(hold)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for name, s := range map[string]*ollamatest.Server{"a": a, "b": b} {
		st := s.Stats()
		if st.PeakInFlight > 2 || st.Chats < 2 {
			t.Errorf("server %s: %d calls, %d in flight at most (slots 2)", name, st.Chats, st.PeakInFlight)
		}
	}
}

func TestPoolMovesOnFromAFailingServer(t *testing.T) {
	cases := []struct {
		name string
		turn ollamatest.Turn
		// refused: the first server is not listening at all.
		refused bool
	}{
		{name: "503", turn: ollamatest.Fail(503, "")},
		{name: "500", turn: ollamatest.Fail(500, "runner crashed")},
		{name: "dropped", turn: ollamatest.Drop("half")},
		{name: "refused", refused: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true})
			bad.Default(tc.turn)
			good := ollamatest.New(t, ollamatest.Config{})
			good.Default(ollamatest.Text("fine"))
			badURL := bad.URL()
			if tc.refused {
				badURL = closedport.URL(t)
			}
			p := poolOf(t, 1, badURL, good.URL())
			for i := 0; i < 4; i++ {
				resp, err := p.Chat(context.Background(), ChatRequest{Messages: userMsg("hi"), OnDelta: func(Delta) {}})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if resp.Message.Content != "fine" || resp.Server != good.URL() {
					t.Fatalf("call %d answered by %s: %+v", i, resp.Server, resp.Message)
				}
			}
			// The failing server had one call, then sat out its cooldown.
			if n := bad.Stats().Chats; n > 1 {
				t.Errorf("the failing server got %d calls, want at most 1", n)
			}
			if n := good.Stats().Chats; n != 4 {
				t.Errorf("the good server got %d calls, want 4", n)
			}
		})
	}
}

func TestPoolGivesUp(t *testing.T) {
	cases := []struct {
		name  string
		turn  ollamatest.Turn
		model string
		kind  Kind
		calls int // show and chat requests over both servers
	}{
		{name: "bad request is the request's fault", turn: ollamatest.Fail(400, "bad"), kind: KindBadRequest, calls: 2},
		{name: "no server has the model", model: "absent", turn: ollamatest.Text("x"), kind: KindModelMissing, calls: 2},
		{name: "both broken", turn: ollamatest.Fail(503, ""), kind: KindUnavailable, calls: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true})
			b := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true})
			a.Default(tc.turn)
			b.Default(tc.turn)
			p := poolOf(t, 1, a.URL(), b.URL())
			start := time.Now()
			_, err := p.Chat(context.Background(), ChatRequest{Model: tc.model, Messages: userMsg("hi")})
			if KindOf(err) != tc.kind {
				t.Fatalf("kind %v (%v), want %v", KindOf(err), err, tc.kind)
			}
			n := 0
			for _, s := range []*ollamatest.Server{a, b} {
				n += len(s.RequestsTo("/api/chat")) + len(s.RequestsTo("/api/show"))
			}
			if n != tc.calls {
				t.Errorf("%d requests, want %d", n, tc.calls)
			}
			// Both servers cool down for a minute, past the 5s budget: the
			// pool says so at once instead of waiting.
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("gave up after %s", took)
			}
		})
	}
}

func TestPoolRemembersAMissingModel(t *testing.T) {
	a := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "other"}}})
	b := ollamatest.New(t, ollamatest.Config{})
	b.Default(ollamatest.Text("ok"))
	p := poolOf(t, 4, a.URL(), b.URL())
	for i := 0; i < 3; i++ {
		if _, err := p.Chat(context.Background(), ChatRequest{Messages: userMsg("hi")}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(a.RequestsTo("/api/show")) + len(a.RequestsTo("/api/chat")); n != 1 {
		t.Errorf("the server without the model was asked %d times, want once", n)
	}
}
