package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// runs keeps the stage runs started from the editor: at most one per
// workspace (the run lock allows no more), each on its own goroutine with a
// context that icm.cancel, window/workDoneProgress/cancel and shutdown
// cancel.
type runs struct {
	s      *Server
	mu     sync.Mutex
	active map[string]*activeRun // by workspace root
	wg     sync.WaitGroup
}

// activeRun is one run in progress.
type activeRun struct {
	id        string
	token     string
	cancel    context.CancelFunc
	cancelled bool
	info      snapshot.Running
}

func newRuns(s *Server) *runs {
	return &runs{s: s, active: map[string]*activeRun{}}
}

// running describes the run going on in a workspace, or nil.
func (r *runs) running(root string) *snapshot.Running {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.active[root]; ok {
		info := a.info
		return &info
	}
	return nil
}

// update changes the description of a workspace's run.
func (r *runs) update(root string, f func(*snapshot.Running)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.active[root]; ok {
		f(&a.info)
	}
}

// cancel stops the run of a workspace; it reports whether one was going.
func (r *runs) cancel(root string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.active[root]
	if ok {
		a.cancelled = true
		a.cancel()
	}
	return ok
}

// cancelToken stops the run reporting progress under token.
func (r *runs) cancelToken(token string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.active {
		if a.token == token {
			a.cancelled = true
			a.cancel()
			return true
		}
	}
	return false
}

// cancelAll stops every run (shutdown).
func (r *runs) cancelAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.active {
		a.cancelled = true
		a.cancel()
	}
}

// wait returns once every run goroutine has ended.
func (r *runs) wait() { r.wg.Wait() }

// progressCancel is the client's cancel button on a run's progress.
// glsp's params type drops the token's value, so it is read here.
func (s *Server) progressCancel(gctx *glsp.Context, _ *protocol.WorkDoneProgressCancelParams) error {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(gctx.Params, &p); err != nil {
		return err
	}
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		token = string(p.Token) // a number token, as written
	}
	if !s.pulls.cancel(token) {
		s.runs.cancelToken(token)
	}
	return nil
}
