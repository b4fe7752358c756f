package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/telemetry"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
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
}

// tracing adds the OTLP exporter to a run's progress when the server's
// environment names an endpoint (OTEL_EXPORTER_OTLP_ENDPOINT), as `icm run`
// does; flush sends what is left when the run is over. A bad setting is
// logged: tracing never stops a run.
func (r *runs) tracing(ctx context.Context, ws *workspace.Workspace, progress func(workflow.Event)) (func(workflow.Event), func()) {
	x, err := telemetry.FromEnv(ctx, r.s.getenv, telemetry.Options{ServiceVersion: r.s.opts.Version})
	if err != nil {
		r.s.log.Warn("traces are not exported", "err", err)
	}
	if x == nil {
		return progress, func() {}
	}
	return telemetry.Tee(progress, x.Observe(telemetry.RunInfo{Workspace: ws.Root, Provider: ws.Config.Model.Provider})), func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := x.Shutdown(sctx); err != nil {
			r.s.log.Warn("traces were not all sent", "err", err)
		}
	}
}

// start begins a run of the workflow engine (the code behind `icm run`) on
// a goroutine and returns its id at once. Progress goes to the client as
// $/progress; every stage's end as icm/runFinished.
func (r *runs) start(st *wsState, req runRequest) (string, error) {
	ws, err := workspace.Open(st.root, workspace.DiskFiles{})
	if err != nil {
		return "", err
	}
	client, _, err := st.client(ws)
	if err != nil {
		return "", err
	}
	set := r.s.currentSettings()
	reg := st.registry()
	ctx, cancel := context.WithCancel(r.s.ctx)
	a := &activeRun{cancel: cancel}
	rp := &runProgress{s: r.s, st: st, run: a, tools: map[string]int{}}
	progress, flush := r.tracing(ctx, ws, rp.event)
	eng, err := workflow.New(ws, workflow.Options{
		Client: client, Model: set.Model, Gate: set.Gate, Stage: req.stage, All: req.all, Force: req.force,
		Servers: toolbox.Names(reg), Tools: toolbox.Opener(reg, tools.DefaultOptions(ws.Root, ws.Config)), Progress: progress,
		// code-blocks Verify checks run in this binary's sandbox, as with `icm run`.
		CodeBlocks: &codecheck.Checker{},
	})
	if err != nil {
		cancel()
		flush()
		return "", err
	}
	a.id = eng.RunID()
	a.token = "icm-run-" + a.id
	a.info = RunningInfo{Stage: req.stage, RunID: a.id}
	r.mu.Lock()
	if cur, busy := r.active[st.root]; busy {
		r.mu.Unlock()
		cancel()
		return "", fmt.Errorf("a run is already going in %s (stage %s, run %s); cancel it with icm.cancel or wait", st.root, cur.info.Stage, cur.id)
	}
	r.active[st.root] = a
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer cancel()
		defer flush()
		defer r.s.recoverLog("run " + a.id)
		title := "icm: running " + filepath.Base(st.root)
		if req.stage != "" {
			title = "icm: running " + req.stage
		}
		rp.p = r.s.beginProgress(ctx, a.token, title, "starting")
		sum, err := eng.Run(ctx)
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
		if !rp.finishedAny || (err != nil && !rp.reportedErr) {
			// No stage reported its end (nothing to run, the lock was held,
			// the contract was invalid): say how the run ended.
			r.s.sendRunFinished(runFinished{Workspace: st.root, Stage: a.info.Stage, RunID: a.id, OK: err == nil && !cancelled,
				Cancelled: cancelled, Message: msg, Outputs: []string{}})
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
	reportedErr bool
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
		rp.reportedErr = rp.reportedErr || ev.Err != ""
		outs := make([]string, 0, len(ev.Outputs))
		for _, o := range ev.Outputs {
			outs = append(outs, filepath.Join(root, filepath.FromSlash(o)))
		}
		failed := false
		for _, v := range ev.Verify {
			failed = failed || !v.OK
		}
		rp.s.sendRunFinished(runFinished{Workspace: root, Stage: ev.Stage, RunID: ev.RunID, OK: ev.Err == "",
			Cancelled: errors.Is(rp.s.ctxErr(), context.Canceled) || rp.cancelled(), Message: ev.Message, Outputs: outs, VerifyFailed: failed})
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

// approve records approval of a stage (the code behind `icm approve`).
// When Verify checks failed and force is not set, the error's message
// starts "verify-failed:" so clients can offer to force it.
func (s *Server) approve(_ context.Context, st *wsState, stage string, force bool) error {
	ws, err := workspace.Open(st.root, workspace.DiskFiles{})
	if err != nil {
		return err
	}
	_, err = workflow.Approve(ws, stage, workflow.ApproveOptions{Force: force, Model: s.currentSettings().Model, CodeBlocks: &codecheck.Checker{}})
	if err != nil {
		if errors.Is(err, workflow.ErrVerifyFailed) && !strings.HasPrefix(err.Error(), workflow.ErrVerifyFailed.Error()+":") {
			return fmt.Errorf("%s: %w", workflow.ErrVerifyFailed.Error(), err)
		}
		return err
	}
	st.touch(false)
	s.statusMayHaveChanged(st)
	return nil
}

// outputInfo is one output file in icm.outputs.
type outputInfo struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// previousOutput is one kept version in icm.outputs.
type previousOutput struct {
	Path  string `json:"path"`
	RunID string `json:"runId"`
	Time  string `json:"time"`
}

// outputs lists a stage's current outputs and the versions kept in
// history/versions/<stage>/, newest first.
func (s *Server) outputs(st *wsState, stage string) (any, error) {
	ws, err := workspace.Open(st.root, workspace.DiskFiles{})
	if err != nil {
		return nil, err
	}
	stg, err := ws.Stage(stage)
	if err != nil {
		return nil, err
	}
	src, err := ws.Files.ReadFile(stg.Contract)
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", stg.ContractRel(), err)
	}
	c := parseContract(stg.Contract, src)
	cur := []outputInfo{}
	for _, o := range c.Outputs {
		if o.Templated {
			continue
		}
		abs, err := ws.Resolve(stg.Dir, o.Path)
		if err != nil {
			continue
		}
		_, statErr := os.Stat(abs)
		cur = append(cur, outputInfo{Path: abs, Exists: statErr == nil})
	}
	prev := []previousOutput{}
	versions, err := workflow.Versions(ws, stg.Name)
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		names := make([]string, 0, len(v.Files))
		for n := range v.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			prev = append(prev, previousOutput{Path: v.Files[n], RunID: v.RunID, Time: v.Time.UTC().Format(time.RFC3339)})
		}
	}
	return map[string]any{"outputs": cur, "previous": prev}, nil
}
