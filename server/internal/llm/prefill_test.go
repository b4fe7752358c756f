package llm

import (
	"strings"
	"testing"
)

// toks makes a prompt of tokens: a shared start of n tokens (1..n), then
// the item's own tokens (item*1000 + 1..own).
func toks(shared, item, own int) []int32 {
	out := make([]int32, 0, shared+own)
	for i := 1; i <= shared; i++ {
		out = append(out, int32(i))
	}
	for i := 1; i <= own; i++ {
		out = append(out, int32(item*1000+i))
	}
	return out
}

func setup(slots int, multi bool) Caches {
	return Caches{Default: CacheSetup{Slots: slots, MultiUser: multi, Source: "config.toml"}}
}

// TestPrefillReplaysTheServersSlots: the predictions follow Ollama's
// choice of slot (runner/*/cache.go, v0.17): without the multi-user
// cache a call reuses only a free slot's tokens; with it, a call copies
// the longest start any slot holds, one in use included.
func TestPrefillReplaysTheServersSlots(t *testing.T) {
	const srv, model, win = "http://127.0.0.1:11434", "m", 4096
	t.Run("one at a time", func(t *testing.T) {
		p := NewPrefill(setup(4, false))
		a := p.begin(srv, model, win, toks(100, 1, 10)).end(toks(0, 9, 5))
		b := p.begin(srv, model, win, toks(100, 2, 12)).end(nil)
		if a.Reused != 0 || a.Own != 110 || b.Reused != 100 || b.Own != 12 {
			t.Errorf("first %+v, second %+v", a, b)
		}
	})
	t.Run("two at once without the multi-user cache", func(t *testing.T) {
		p := NewPrefill(setup(4, false))
		one := p.begin(srv, model, win, toks(100, 1, 10))
		two := p.begin(srv, model, win, toks(100, 2, 10))
		a, b := one.end(nil), two.end(nil)
		c := p.begin(srv, model, win, toks(100, 3, 10)).end(nil)
		if a.Reused != 0 || b.Reused != 0 || c.Reused != 100 {
			t.Errorf("reused %d, %d, %d; want 0, 0, 100", a.Reused, b.Reused, c.Reused)
		}
		// What the stage could have cost: item 1 whole, the others' own.
		if a.Own+b.Own+c.Own != 130 {
			t.Errorf("own %d+%d+%d, want 130", a.Own, b.Own, c.Own)
		}
	})
	t.Run("the multi-user cache copies a slot in use", func(t *testing.T) {
		p := NewPrefill(setup(4, true))
		one := p.begin(srv, model, win, toks(100, 1, 10))
		two := p.begin(srv, model, win, toks(100, 2, 10))
		three := p.begin(srv, model, win, toks(100, 3, 10))
		b, c, a := two.end(nil), three.end(nil), one.end(nil)
		if a.Reused != 0 || b.Reused != 100 || c.Reused != 100 {
			t.Errorf("reused %d, %d, %d; want 0, 100, 100", a.Reused, b.Reused, c.Reused)
		}
	})
	t.Run("a call waits for a slot and then reuses it", func(t *testing.T) {
		p := NewPrefill(setup(1, false))
		one := p.begin(srv, model, win, toks(100, 1, 10))
		two := p.begin(srv, model, win, toks(100, 2, 10))
		a := one.end(nil)
		b := two.end(nil)
		if a.Reused != 0 || b.Reused != 100 {
			t.Errorf("reused %d, %d; want 0, 100", a.Reused, b.Reused)
		}
	})
	t.Run("the same prompt again computes its last token", func(t *testing.T) {
		p := NewPrefill(setup(1, false))
		p.begin(srv, model, win, toks(50, 1, 0)).end(nil)
		again := p.begin(srv, model, win, toks(50, 1, 0)).end(nil)
		if again.Reused != 49 || again.Own != 1 {
			t.Errorf("again: %+v, want 49 reused, 1 own", again)
		}
	})
	t.Run("a conversation reuses the answer it continues", func(t *testing.T) {
		p := NewPrefill(setup(1, false))
		first := toks(50, 1, 5)
		answer := []int32{7001, 7002, 7003}
		p.begin(srv, model, win, first).end(answer)
		next := append(append(append([]int32{}, first...), answer...), 8001, 8002)
		got := p.begin(srv, model, win, next).end(nil)
		if got.Reused != 58 {
			t.Errorf("follow-up reused %d, want 58 (prompt and answer)", got.Reused)
		}
	})
	t.Run("another window empties the slots", func(t *testing.T) {
		p := NewPrefill(setup(2, false))
		p.begin(srv, model, win, toks(100, 1, 10)).end(nil)
		got := p.begin(srv, model, 2*win, toks(100, 2, 10)).end(nil)
		if got.Reused != 0 || got.Own != 10 {
			t.Errorf("after a reload: %+v, want nothing reused, 10 own", got)
		}
	})
	t.Run("servers and models are apart", func(t *testing.T) {
		p := NewPrefill(setup(1, false))
		p.begin(srv, model, win, toks(100, 1, 10)).end(nil)
		other := p.begin("http://127.0.0.1:11435", model, win, toks(100, 2, 10)).end(nil)
		otherModel := p.begin(srv, "n", win, toks(100, 2, 10)).end(nil)
		if other.Reused != 0 || otherModel.Reused != 0 {
			t.Errorf("another server reused %d, another model %d", other.Reused, otherModel.Reused)
		}
	})
}

// TestPrefillSaysWhatItAssumed: without a stated setup one slot is
// assumed, and the basis says so and how to state it.
func TestPrefillSaysWhatItAssumed(t *testing.T) {
	p := NewPrefill(Caches{ByServer: map[string]CacheSetup{"http://a:1": {Slots: 4, MultiUser: true, Source: "config.toml"}}})
	got := p.begin("http://b:1", "m", 2048, toks(10, 1, 1)).end(nil)
	if !strings.Contains(got.Basis, "1 slot assumed") || !strings.Contains(got.Basis, "[model] slots") {
		t.Errorf("basis %q", got.Basis)
	}
	got = p.begin("http://a:1/v1/", "m", 2048, toks(10, 1, 1)).end(nil)
	if got.Basis != "4 slots, multi-user cache (config.toml)" {
		t.Errorf("basis %q", got.Basis)
	}
	var none *Prefill
	if none.begin("http://a:1", "m", 2048, toks(10, 1, 1)).end(nil) != nil {
		t.Error("a nil Prefill predicted something")
	}
	if p.begin("http://a:1", "m", 2048, nil) != nil {
		t.Error("a prompt of unknown tokens was placed")
	}
}
