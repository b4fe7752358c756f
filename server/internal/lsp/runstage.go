package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// runRequest is what a run command asks for.
type runRequest struct {
	stage string // one stage; "" for the next stage that needs running
	all   bool   // go on through the gates
	force bool   // overwrite outputs edited without approval
}

// runFinished is the params of icm/runFinished.
type runFinished struct {
	Workspace    string   `json:"workspace"`
	Stage        string   `json:"stage"`
	RunID        string   `json:"runId"`
	OK           bool     `json:"ok"`
	Cancelled    bool     `json:"cancelled"`
	Message      string   `json:"message"`
	Outputs      []string `json:"outputs"`
	VerifyFailed bool     `json:"verifyFailed"`
	// Error describes a failed run as an error reply's data does, so the
	// client offers the same fixes.
	Error *errorData `json:"error,omitempty"`
}

// start begins a run (the code behind `icm run`, through a session of its
// own) on a goroutine and returns its id at once. Progress goes to the
// client as $/progress; every stage's end as icm/runFinished.
func (r *runs) start(st *wsState, req runRequest) (string, error) {
	sess, err := st.openSession()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(r.s.ctx)
	a := &activeRun{cancel: cancel}
	rp := &runProgress{s: r.s, st: st, run: a, tools: map[string]int{}}
	run, err := sess.NewRun(session.RunRequest{Stage: req.stage, All: req.all, Force: req.force}, rp.event)
	if err != nil {
		cancel()
		sess.Close()
		return "", err
	}
	a.id = run.ID()
	a.token = "icm-run-" + a.id
	a.info = RunningInfo{Stage: req.stage, RunID: a.id}
	r.mu.Lock()
	if cur, busy := r.active[st.root]; busy {
		r.mu.Unlock()
		cancel()
		sess.Close()
		return "", fault.Busy(fmt.Sprintf("a run is already going in %s (stage %s, run %s)", st.root, cur.info.Stage, cur.id))
	}
	r.active[st.root] = a
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer cancel()
		defer sess.Close()
		defer r.s.recoverLog("run " + a.id)
		title := "icm: running " + filepath.Base(st.root)
		if req.stage != "" {
			title = "icm: running " + req.stage
		}
		rp.p = r.s.beginProgress(ctx, a.token, title, "starting")
		sum, err := run.Execute(ctx)
		r.mu.Lock()
		delete(r.active, st.root)
		cancelled := a.cancelled || errors.Is(err, context.Canceled)
		r.mu.Unlock()
		msg := "done"
		switch {
		case cancelled:
			msg = "cancelled"
		case err != nil:
			msg = err.Error()
		case sum != nil:
			msg = sum.Next.Message
		}
		if !rp.finishedAny || err != nil {
			// No stage reported its end (nothing to run, the lock was held,
			// the contract was invalid), or one failed: say how the run
			// ended, with the error's fixes.
			f := runFinished{Workspace: st.root, Stage: a.info.Stage, RunID: a.id, OK: err == nil && !cancelled,
				Cancelled: cancelled, Message: msg, Outputs: []string{}}
			if rp.failed != nil {
				f = *rp.failed
				f.Message, f.Cancelled = msg, cancelled
			}
			if err != nil {
				f.Error = dataOf(fault.From(err))
			}
			r.s.sendRunFinished(f)
		}
		rp.p.end(msg)
		st.touch(false)
		r.s.statusMayHaveChanged(st)
	}()
	return a.id, nil
}

// runProgress turns the engine's events into progress reports.
type runProgress struct {
	s           *Server
	st          *wsState
	run         *activeRun
	p           *progress
	tools       map[string]int // tool calls per stage
	finishedAny bool
	// failed is the end of the stage that failed, sent with the run's
	// error once the run returns it.
	failed *runFinished
}

func (rp *runProgress) event(ev workflow.Event) {
	root := rp.st.root
	switch ev.Kind {
	case workflow.EventStageStart:
		rp.s.runs.update(root, func(i *RunningInfo) { i.Stage, i.Item, i.Items = ev.Stage, 0, 0 })
		rp.report(ev.Stage+": "+ev.Message, -1)
		rp.s.statusMayHaveChanged(rp.st)
	case workflow.EventItemStart:
		rp.s.runs.update(root, func(i *RunningInfo) { i.Item, i.Items = ev.Index, ev.Count })
		pct := -1
		if ev.Count > 0 {
			pct = (ev.Index - 1) * 100 / ev.Count
		}
		rp.report(fmt.Sprintf("%s [%d/%d] %s", ev.Stage, ev.Index, ev.Count, ev.Item), pct)
	case workflow.EventTool:
		rp.tools[ev.Stage]++
		name := ""
		if ev.Tool != nil {
			name = ev.Tool.Name
		}
		rp.report(fmt.Sprintf("%s: tool %s (%d calls)", ev.Stage, name, rp.tools[ev.Stage]), -1)
	case workflow.EventModel:
		if ev.Model != nil {
			rp.report(fmt.Sprintf("%s: model call %d", labelOf(ev), ev.Model.Call), -1)
		}
	case workflow.EventVerify:
		rp.report(ev.Stage+": "+ev.Message, -1)
	case workflow.EventStageEnd:
		rp.finishedAny = true
		outs := make([]string, 0, len(ev.Outputs))
		for _, o := range ev.Outputs {
			outs = append(outs, filepath.Join(root, filepath.FromSlash(o)))
		}
		failed := false
		for _, v := range ev.Verify {
			failed = failed || !v.OK
		}
		f := runFinished{Workspace: root, Stage: ev.Stage, RunID: ev.RunID, OK: ev.Err == "",
			Cancelled: errors.Is(rp.s.ctxErr(), context.Canceled) || rp.cancelled(), Message: ev.Message, Outputs: outs, VerifyFailed: failed}
		if ev.Err != "" {
			rp.failed = &f // sent with the run's error
		} else {
			rp.s.sendRunFinished(f)
		}
		rp.s.statusMayHaveChanged(rp.st)
	}
}

func (rp *runProgress) cancelled() bool {
	rp.s.runs.mu.Lock()
	defer rp.s.runs.mu.Unlock()
	return rp.run.cancelled
}

func (rp *runProgress) report(msg string, pct int) {
	if rp.p != nil {
		rp.p.report(msg, pct)
	}
}

func labelOf(ev workflow.Event) string {
	if ev.Item != "" {
		return fmt.Sprintf("%s [%d/%d]", ev.Stage, ev.Index, ev.Count)
	}
	return ev.Stage
}

func (s *Server) sendRunFinished(f runFinished) {
	if err := s.notify(notifyRunFinished, f); err != nil {
		s.log.Info("unable to send runFinished", "err", err)
	}
}

// ctxErr is the connection context's error.
func (s *Server) ctxErr() error { return s.ctx.Err() }
