package llm

import (
	"fmt"
	"strings"
	"sync"
)

// Prefill: what a prompt costs before the first word of its answer.
//
// A model server reads (prefills) every token of a prompt before it
// answers, except the tokens at its start that a slot of the server
// already holds from an earlier call: Ollama keeps in each of its slots
// (OLLAMA_NUM_PARALLEL of them) the tokens of the last call that slot
// ran, and starts a new call in the free slot whose tokens share the
// longest start with its prompt. With OLLAMA_MULTIUSER_CACHE it may
// instead copy the longest matching start held by any slot, one in use
// included, into the least recently used free slot. Either way the last
// token of a prompt is always computed again.
//
// icm knows each prompt's exact tokens before it sends it (where the
// model's files are on this machine), so it keeps, for one run, the
// prompts it sent to each server and model and replays the server's
// choice of slot: Reuse.Reused is then a prediction, under what icm
// knows of the server (Caches); where the server reports the tokens it
// reused (newer Ollama versions, cached_tokens in OpenAI-compatible
// usage) that figure is shown instead. Reuse.Own is the least the call
// could compute: the tokens its prompt does not share with any earlier
// prompt of the run, which a server that kept everything would reuse.

// CacheSetup is what icm knows of how a model server keeps computed
// prompts.
type CacheSetup struct {
	// Slots is how many calls the server computes at once, each in a slot
	// that keeps the tokens it last held (OLLAMA_NUM_PARALLEL); 0 means
	// not known, and one slot is assumed.
	Slots int
	// MultiUser says a call may start from a copy of the longest matching
	// start any slot holds (OLLAMA_MULTIUSER_CACHE).
	MultiUser bool
	// Source says who stated the setup ("config.toml"); "" when nobody
	// did and icm assumes one slot without the multi-user cache.
	Source string
}

// Basis words the setup for a person: "4 slots, multi-user cache
// (config.toml)", "1 slot assumed (the server's slots are not known:
// [model] slots)".
func (c CacheSetup) Basis() string {
	if c.Source == "" {
		return "1 slot assumed (the server's slots are not known: set [model] slots)"
	}
	b := fmt.Sprintf("%d slot", max(c.Slots, 1))
	if c.Slots > 1 {
		b += "s"
	}
	if c.Slots <= 0 {
		b += " assumed"
	}
	if c.MultiUser {
		b += ", multi-user cache"
	}
	return b + " (" + c.Source + ")"
}

// Caches says what icm knows of each model server's cache: ByServer by
// base URL, Default for any other.
type Caches struct {
	Default  CacheSetup
	ByServer map[string]CacheSetup
}

// With is c with what o knows laid over it: o's servers, and o's
// default when it has one.
func (c Caches) With(o Caches) Caches {
	out := Caches{Default: c.Default, ByServer: map[string]CacheSetup{}}
	for k, v := range c.ByServer {
		out.ByServer[k] = v
	}
	for k, v := range o.ByServer {
		out.ByServer[serverKey(k)] = v
	}
	if o.Default.Source != "" {
		out.Default = o.Default
	}
	return out
}

// of is the setup of the server at base.
func (c Caches) of(base string) CacheSetup {
	if s, ok := c.ByServer[serverKey(base)]; ok {
		return s
	}
	return c.Default
}

// serverKey is a base URL as Caches keys it: no trailing slash, no
// OpenAI-style /v1.
func serverKey(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// Reuse is what a call's prompt cost in prefill.
type Reuse struct {
	// Reused is how many of the prompt's tokens the server took from a
	// slot's cache instead of computing them.
	Reused int
	// Measured says the server reported Reused; otherwise icm predicted it.
	Measured bool
	// Own is how many of the prompt's tokens no earlier prompt of the run
	// to the same server and model began with: what the call computes at
	// the least. 0 when the prompt's tokens were not known.
	Own int
	// Basis says what Reused rests on: the server's setup the prediction
	// assumed, or that the server reported it.
	Basis string
}

// ReportedBasis is Reuse.Basis for a figure the server reported.
const ReportedBasis = "reported by the server"

// maxPrefillPrompts bounds the prompts kept per server and model for
// Own: a run of hundreds of calls keeps the latest.
const maxPrefillPrompts = 256

// Prefill keeps, for one run, the token prefixes of the calls sent to
// each model server and model, and predicts how many tokens of a new
// call's prompt the server reuses (see the comment above). A nil
// *Prefill predicts nothing. It is safe for concurrent use.
type Prefill struct {
	caches Caches

	mu      sync.Mutex
	servers map[prefillKey]*slotModel
	// clock orders slot use, as the server's last-used times do.
	clock uint64
}

// NewPrefill returns a run's account under caches.
func NewPrefill(caches Caches) *Prefill {
	return &Prefill{caches: caches, servers: map[prefillKey]*slotModel{}}
}

type prefillKey struct{ server, model string }

// slotModel replays one server's slots for one model.
type slotModel struct {
	setup  CacheSetup
	window int
	slots  []*slot
	// waiting are calls sent while every slot was busy, in order.
	waiting []*prefillCall
	// prompts are the run's earlier prompts, for Own.
	prompts [][]int32
}

type slot struct {
	tokens []int32
	inUse  bool
	used   uint64
}

// prefillCall is one call's place in its server's slots.
type prefillCall struct {
	p      *Prefill
	m      *slotModel
	prompt []int32
	own    int
	// slot and reused are set once the call has a slot.
	slot   *slot
	reused int
	done   bool
}

// begin places a call of model to the server at base, with its window
// and its prompt's tokens. It returns nil when p is nil or the tokens are
// not known.
func (p *Prefill) begin(base, model string, window int, prompt []int32) *prefillCall {
	if p == nil || len(prompt) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key := prefillKey{serverKey(base), model}
	m := p.servers[key]
	if m == nil {
		m = &slotModel{setup: p.caches.of(base)}
		p.servers[key] = m
	}
	if m.window != window {
		// Ollama loads the model again for another window: every slot
		// starts empty. Calls still running keep their old slots.
		m.window = window
		m.slots = make([]*slot, max(1, m.setup.Slots))
		for i := range m.slots {
			m.slots[i] = &slot{}
		}
		m.waiting = nil
	}
	c := &prefillCall{p: p, m: m, prompt: prompt}
	shared := 0
	for _, q := range m.prompts {
		shared = max(shared, commonPrefix(q, prompt))
	}
	c.own = len(prompt) - min(shared, len(prompt)-1)
	m.prompts = append(m.prompts, prompt)
	if len(m.prompts) > maxPrefillPrompts {
		m.prompts = m.prompts[1:]
	}
	if !p.assign(m, c) {
		m.waiting = append(m.waiting, c)
	}
	return c
}

// assign gives c a slot as the server would, or reports that none is
// free. Called with p.mu held.
func (p *Prefill) assign(m *slotModel, c *prefillCall) bool {
	var s *slot
	past := 0
	if m.setup.MultiUser {
		s, past = bestSlot(m.slots, c.prompt)
	} else {
		s, past = longestSlot(m.slots, c.prompt)
	}
	if s == nil {
		return false
	}
	if past == len(c.prompt) {
		// The server computes the last token again to answer.
		past--
	}
	p.clock++
	s.inUse, s.used = true, p.clock
	s.tokens = c.prompt
	c.slot, c.reused = s, past
	return true
}

// longestSlot is the free slot sharing the longest start with prompt.
func longestSlot(slots []*slot, prompt []int32) (*slot, int) {
	var best *slot
	longest := -1
	for _, s := range slots {
		if s.inUse {
			continue
		}
		if n := commonPrefix(s.tokens, prompt); n > longest {
			best, longest = s, n
		}
	}
	return best, max(longest, 0)
}

// bestSlot is the multi-user cache's choice: the slot sharing the
// longest start when it is free and holds nothing more, else the least
// recently used free slot, given a copy of that start.
func bestSlot(slots []*slot, prompt []int32) (*slot, int) {
	var longestAt, oldest *slot
	longest := -1
	for _, s := range slots {
		if n := commonPrefix(s.tokens, prompt); n > longest {
			longestAt, longest = s, n
		}
		if !s.inUse && (oldest == nil || s.used < oldest.used) {
			oldest = s
		}
	}
	if longest == len(longestAt.tokens) && !longestAt.inUse {
		return longestAt, longest
	}
	if oldest == nil {
		return nil, 0
	}
	// The server copies the start into oldest; the caller puts the whole
	// prompt there.
	return oldest, max(longest, 0)
}

// end frees the call's slot, which keeps the prompt and the answer's
// tokens, and gives waiting calls their slots. It returns the call's
// figures (nil for a nil call).
func (c *prefillCall) end(answer []int32) *Reuse {
	if c == nil {
		return nil
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.done {
		return c.figures()
	}
	c.done = true
	m := c.m
	if c.slot == nil {
		// Still waiting as icm saw it: the server gave it a slot anyway.
		m.waiting = removeCall(m.waiting, c)
		if !c.p.assign(m, c) {
			c.slot = &slot{inUse: true}
		}
	}
	c.slot.tokens = append(append(make([]int32, 0, len(c.prompt)+len(answer)), c.prompt...), answer...)
	c.slot.inUse = false
	for len(m.waiting) > 0 && c.p.assign(m, m.waiting[0]) {
		m.waiting = m.waiting[1:]
	}
	return c.figures()
}

// figures are the call's Reuse. Called with p.mu held.
func (c *prefillCall) figures() *Reuse {
	return &Reuse{Reused: c.reused, Own: c.own, Basis: c.m.setup.Basis()}
}

func removeCall(calls []*prefillCall, c *prefillCall) []*prefillCall {
	for i, x := range calls {
		if x == c {
			return append(calls[:i:i], calls[i+1:]...)
		}
	}
	return calls
}

// commonPrefix counts the tokens a and b begin with alike.
func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
