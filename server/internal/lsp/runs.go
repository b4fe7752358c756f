package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/state"
)

// runs keeps the stage runs started from the editor: at most one per
// workspace (the run lock allows no more), each on its own goroutine with a
// context that icm.cancel, window/workDoneProgress/cancel and shutdown
// cancel.
type runs struct {
	e      *env
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

func newRuns(e *env) *runs {
	return &runs{e: e, active: map[string]*activeRun{}}
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

// progressCancel handles window/workDoneProgress/cancel, the client's
// cancel button on a run's or a pull's progress. glsp's params type drops
// the token's value, so it is read here from the raw params.
func progressCancel(e *env, params json.RawMessage) error {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		token = string(p.Token) // a number token, as written
	}
	if !e.pulls.cancel(token) {
		e.runs.cancelToken(token)
	}
	return nil
}

// runNext runs icm.runNext: the next stage that needs running.
func runNext(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	return startRun(e, w, runRequest{force: args.Force, committed: args.Committed})
}

// runStage runs icm.runStage: the stage named.
func runStage(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	return startRun(e, w, runRequest{stage: args.Stage, force: args.Force, committed: args.Committed})
}

// runAll runs icm.runAll: every stage that needs it, on through the gates.
func runAll(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	return startRun(e, w, runRequest{all: true, force: args.Force, committed: args.Committed})
}

// runItem runs icm.runItem: one For each item of a stage again, with a
// person's note for its call.
func runItem(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	if args.Stage == "" || args.Item < 1 {
		return nil, fault.InvalidRequest(cmdRunItem+" needs a stage and an item", "pass {workspace, stage, item (from 1), note?}")
	}
	return startRun(e, w, runRequest{stage: args.Stage, item: args.Item, note: args.Note})
}

// startRun starts a run and answers with its id.
func startRun(e *env, w *snapshot.Workspace, req runRequest) (any, error) {
	switch req.committed {
	case "", state.KeepCommitted, state.RegenerateCommitted:
	default:
		return nil, fault.InvalidRequest(fmt.Sprintf("committed %q is no answer", req.committed),
			fmt.Sprintf("pass committed: %q (keep the outputs committed with the workspace as approved) or %q", state.KeepCommitted, state.RegenerateCommitted))
	}
	id, err := e.runs.start(w, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"started": true, "runId": id}, nil
}

// cancelRun runs icm.cancel: it stops the workspace's run.
func cancelRun(_ context.Context, e *env, w *snapshot.Workspace, _ commandArgs) (any, error) {
	return map[string]bool{"cancelled": e.runs.cancel(w.Root())}, nil
}
