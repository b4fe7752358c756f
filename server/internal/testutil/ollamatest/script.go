package ollamatest

import "fmt"

// Rule answers the requests its matcher accepts. Make one with Engine.On,
// then give it replies with Reply or ReplyFunc and, optionally, a limit
// with Times.
type Rule struct {
	e       *Engine
	index   int
	match   Matcher
	times   int
	replies []func(*Request) Turn
	hits    int
}

// On adds a rule answering the requests m matches. Rules are tried in the
// order they were added, before the queue and the default; a rule without
// replies yet, or spent by Times, is skipped. A nil m matches everything.
func (e *Engine) On(m Matcher) *Rule {
	if m == nil {
		m = Any()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &Rule{e: e, index: len(e.rules) + 1, match: m}
	e.rules = append(e.rules, r)
	return r
}

// Reply sets the turns the rule answers with: the first match gets the
// first turn, the next match the next, and the last turn repeats. So
// Reply(Fail(503, ""), Fail(503, ""), Text("ok")) fails twice, then succeeds.
func (r *Rule) Reply(turns ...Turn) *Rule {
	fns := make([]func(*Request) Turn, len(turns))
	for i, t := range turns {
		fns[i] = func(*Request) Turn { return t }
	}
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	r.replies = fns
	return r
}

// ReplyFunc makes the rule answer with whatever f returns for the request.
// f runs outside the engine's lock, so it may call the Server's methods.
func (r *Rule) ReplyFunc(f func(*Request) Turn) *Rule {
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	r.replies = []func(*Request) Turn{f}
	return r
}

// Times limits the rule to its first n matches; later requests fall through
// to the next rule, the queue or the default. Zero or less means no limit.
func (r *Rule) Times(n int) *Rule {
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	r.times = n
	return r
}

// Hits returns how many requests the rule has answered.
func (r *Rule) Hits() int {
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	return r.hits
}

// Enqueue appends turns to the queue. Each request no rule answers takes
// the next queued turn, so a scripted conversation (a tool call, then a
// final answer) is a queue of two turns.
func (e *Engine) Enqueue(turns ...Turn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queue = append(e.queue, turns...)
}

// Pending returns how many queued turns are still unused.
func (e *Engine) Pending() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

// Default sets the turn answering requests that no rule or queued turn answers.
func (e *Engine) Default(t Turn) {
	e.DefaultFunc(func(*Request) Turn { return t })
}

// DefaultFunc sets a function answering requests that no rule or queued
// turn answers; like ReplyFunc it runs outside the engine's lock.
func (e *Engine) DefaultFunc(f func(*Request) Turn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.def = f
}

// pick chooses the turn for a request: the first live rule that matches,
// else the next queued turn, else the default. source names the choice for
// the record ("rule 2", "queue", "default"); ok is false when nothing answers.
func (e *Engine) pick(req *Request) (turn Turn, source string, ok bool) {
	var f func(*Request) Turn
	e.mu.Lock()
	for _, r := range e.rules {
		if len(r.replies) == 0 || (r.times > 0 && r.hits >= r.times) || !r.match(req) {
			continue
		}
		f = r.replies[min(r.hits, len(r.replies)-1)]
		r.hits++
		source = fmt.Sprintf("rule %d", r.index)
		break
	}
	if f == nil && len(e.queue) > 0 {
		t := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		return t, "queue", true
	}
	if f == nil && e.def != nil {
		f, source = e.def, "default"
	}
	if f == nil {
		e.unscripted = append(e.unscripted, req)
		e.notifyLocked()
		e.mu.Unlock()
		return Turn{}, "", false
	}
	e.mu.Unlock()
	return f(req), source, true
}

// Unscripted returns the chat calls that nothing in the script answered.
func (e *Engine) Unscripted() []*Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Request(nil), e.unscripted...)
}
