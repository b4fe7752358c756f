package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// Defaults of a Pool.
const (
	// DefaultCooldown is how long a server that failed is left out at
	// first; each further failure in a row doubles it, up to DefaultMaxCooldown.
	DefaultCooldown    = 5 * time.Second
	DefaultMaxCooldown = 2 * time.Minute
)

// PoolMember is one server of a Pool: a client for it and how many calls
// it takes at once.
type PoolMember struct {
	Client Client
	// Slots is how many calls the server answers at once (its
	// OLLAMA_NUM_PARALLEL, vLLM's max_num_seqs ...); less than 1 means 1.
	Slots int
	// Name identifies the server in errors (its address).
	Name string
}

// Pool is a Client that spreads calls over several servers of the same
// model: each call goes to the server with the most free slots (the one
// that served fewer calls on a tie), waits when every slot is taken, and
// moves on to the next server when one fails. A server that fails is left
// out for a cooldown that doubles with each failure in a row; a success
// brings it back at once. It adds no scheduling beyond picking a server:
// For each items and the reader's chunked summaries are what run calls
// concurrently.
//
// The members should make one attempt per call (FromConfig builds them
// so): retrying is the pool's job, on another server where there is one.
type Pool struct {
	members  []*poolMember
	cooldown time.Duration
	maxCool  time.Duration
	budget   time.Duration
	now      func() time.Time

	mu sync.Mutex
	// changed is closed and replaced when a slot frees or a server comes
	// back, waking the calls that wait.
	changed chan struct{}
}

type poolMember struct {
	PoolMember
	busy  int
	calls int
	// missing holds the models the server said it does not have.
	missing   map[string]bool
	failures  int
	downUntil time.Time
	// failedAt is when the last failure was recorded: a call that began
	// before it and then succeeded says nothing about the server now.
	failedAt time.Time
}

// PoolOption configures NewPool.
type PoolOption func(*Pool)

// NewPool returns a pool over members, which must not be empty.
func NewPool(members []PoolMember, opts ...PoolOption) (*Pool, error) {
	if len(members) == 0 {
		return nil, errors.New("a model server pool needs at least one server")
	}
	p := &Pool{cooldown: DefaultCooldown, maxCool: DefaultMaxCooldown, budget: DefaultRetryBudget, now: time.Now, changed: make(chan struct{})}
	for i, m := range members {
		if m.Client == nil {
			return nil, fmt.Errorf("server %d of the pool has no client", i+1)
		}
		if m.Slots < 1 {
			m.Slots = 1
		}
		if m.Name == "" {
			m.Name = fmt.Sprintf("server %d", i+1)
		}
		p.members = append(p.members, &poolMember{PoolMember: m})
	}
	for _, opt := range opts {
		opt(p)
	}
	return p, nil
}

// acquire takes a slot on the best server not in skip, waiting while
// every such server is busy or cooling down. It returns nil when every
// server is in skip.
func (p *Pool) acquire(ctx context.Context, model string, skip map[*poolMember]bool, deadline time.Time) (*poolMember, error) {
	for {
		p.mu.Lock()
		now := p.now()
		var best *poolMember
		var wake time.Time
		candidates := 0
		for _, m := range p.members {
			if skip[m] || m.missing[model] {
				continue
			}
			candidates++
			if now.Before(m.downUntil) {
				if wake.IsZero() || m.downUntil.Before(wake) {
					wake = m.downUntil
				}
				continue
			}
			free := m.Slots - m.busy
			if free <= 0 {
				continue
			}
			if best == nil || free > best.Slots-best.busy || (free == best.Slots-best.busy && m.calls < best.calls) {
				best = m
			}
		}
		if best != nil {
			best.busy++
			best.calls++
			p.mu.Unlock()
			return best, nil
		}
		changed := p.changed
		p.mu.Unlock()
		if candidates == 0 {
			return nil, nil
		}
		if !wake.IsZero() && wake.After(deadline) {
			return nil, nil // the servers left come back too late
		}
		var timer *time.Timer
		var ring <-chan time.Time
		if !wake.IsZero() {
			timer = time.NewTimer(wake.Sub(now))
			ring = timer.C
		}
		select {
		case <-changed:
		case <-ring:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// release gives the slot back and records how the call went: failed
// sends the server into its cooldown, and a model it lacks is not asked
// of it again.
func (p *Pool) release(m *poolMember, started time.Time, model string, err error, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.busy--
	if KindOf(err) == KindModelMissing {
		if m.missing == nil {
			m.missing = map[string]bool{}
		}
		m.missing[model] = true
	}
	switch {
	case failed:
		m.failures++
		m.failedAt = p.now()
		d := p.cooldown
		for i := 1; i < m.failures && d < p.maxCool; i++ {
			d *= 2
		}
		m.downUntil = p.now().Add(min(d, p.maxCool))
	case err == nil && !started.Before(m.failedAt):
		m.failures = 0
		m.downUntil = time.Time{}
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// elsewhere says what a member's failure means for the call: try another
// server (and whether this one is at fault), or give up.
func elsewhere(err error) (next, serverFault bool) {
	switch KindOf(err) {
	case KindUnavailable, KindStream, KindOther, KindRunnerStopped:
		return true, true
	case KindModelMissing:
		// That server lacks the model; another may have it. It is not
		// broken, so it stays in for other calls.
		return true, false
	}
	return false, false
}

// Chat runs the call on the best free server, and on the next one when it
// fails there, until one answers, the failure is the request's own (a
// bad request, a prompt too long), or the budget is spent.
func (p *Pool) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	deadline := p.now().Add(p.budget)
	tried := map[*poolMember]bool{}
	delivered := false
	if onDelta := req.OnDelta; onDelta != nil {
		req.OnDelta = func(d Delta) {
			if d.Content != "" || d.Thinking != "" {
				delivered = true
			}
			onDelta(d)
		}
	}
	var errs []string
	var last error
	attempts := 0
	faulted := false
	for {
		m, err := p.acquire(ctx, req.Model, tried, deadline)
		if err != nil {
			return nil, &Error{Kind: KindOther, Stage: req.Stage, Model: req.Model, Msg: "the call was cancelled", Err: err}
		}
		if m == nil {
			if faulted && p.now().Before(deadline) && p.anyBack(deadline) {
				// Every server failed this call once, some of them
				// broken rather than lacking the model: go round again
				// once the first of them is back.
				tried, faulted = map[*poolMember]bool{}, false
				continue
			}
			return nil, p.exhausted(req, last, errs, attempts)
		}
		if delivered {
			req.OnDelta(Delta{Restart: true})
			delivered = false
		}
		started := p.now()
		resp, err := m.Client.Chat(ctx, req)
		attempts++
		next, fault := elsewhere(err)
		p.release(m, started, req.Model, err, err != nil && fault)
		if err == nil {
			resp.Attempts = max(resp.Attempts, 1) + attempts - 1
			return resp, nil
		}
		if ctx.Err() != nil || !next {
			return nil, err
		}
		tried[m] = true
		faulted = faulted || fault
		last = err
		errs = append(errs, fmt.Sprintf("%s: %v", m.Name, err))
	}
}

// anyBack reports whether some server is up, or back before deadline.
func (p *Pool) anyBack(deadline time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.members {
		if !m.downUntil.After(deadline) {
			return true
		}
	}
	return false
}

// exhausted is the error when no server could answer.
func (p *Pool) exhausted(req ChatRequest, last error, errs []string, attempts int) error {
	e := &Error{Kind: KindUnavailable, Stage: req.Stage, Model: req.Model, Attempts: attempts,
		Msg:  fmt.Sprintf("none of the %d model servers could answer within %s", len(p.members), human.Duration(p.budget)),
		Hint: "check the servers in [[model.servers]] (each one's log), or lower [workflow] parallel"}
	var le *Error
	if errors.As(last, &le) {
		e.Kind, e.Status = le.Kind, le.Status
		e.Unreachable, e.StartCommand = le.Unreachable, le.StartCommand
		if le.Kind == KindModelMissing {
			e.Msg = fmt.Sprintf("no server of the pool has model %q", req.Model)
			e.Hint = le.Hint
		}
	}
	if len(errs) > 0 {
		e.Msg += " (" + strings.Join(errs, "; ") + ")"
	}
	if last == nil {
		e.Msg = fmt.Sprintf("every one of the %d model servers is cooling down after failures", len(p.members))
	}
	return e
}

// Show asks the servers in turn until one answers.
func (p *Pool) Show(ctx context.Context, model string) (*ModelInfo, error) {
	var last error
	for _, m := range p.order() {
		info, err := m.Client.Show(ctx, model)
		if err == nil {
			return info, nil
		}
		if next, _ := elsewhere(err); !next || ctx.Err() != nil {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// Pull downloads the model on every server, one after another.
func (p *Pool) Pull(ctx context.Context, model string, progress func(PullProgress)) error {
	for _, m := range p.members {
		if err := m.Client.Pull(ctx, model, progress); err != nil {
			return fmt.Errorf("unable to pull %s on %s: %w", model, m.Name, err)
		}
	}
	return nil
}

// order lists the members, those up first.
func (p *Pool) order() []*poolMember {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var up, down []*poolMember
	for _, m := range p.members {
		if now.Before(m.downUntil) {
			down = append(down, m)
		} else {
			up = append(up, m)
		}
	}
	return append(up, down...)
}

var _ Client = (*Pool)(nil)

// CountPrompt counts with the first server's counter: every server of a
// pool serves the same model, so each counts a prompt alike.
func (p *Pool) CountPrompt(ctx context.Context, req ChatRequest) (tokens.Count, error) {
	return CountPrompt(ctx, p.members[0].Client, req)
}
