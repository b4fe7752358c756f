package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// runRequest is what a run command asks for.
type runRequest struct {
	stage string // one stage; "" for the next stage that needs running
	all   bool   // go on through the gates
	force bool   // overwrite outputs edited without approval
	item  int    // with stage: that For each item only
	note  string // with item: feedback for its call
	// committed answers the question about outputs committed with the
	// workspace: state.KeepCommitted, state.RegenerateCommitted or "".
	committed string
}

// runFinished is the params of icm/runFinished.
type runFinished struct {
	Workspace string `json:"workspace"`
	Stage     string `json:"stage"`
	RunID     string `json:"runId"`
	OK        bool   `json:"ok"`
	Cancelled bool   `json:"cancelled"`
	// Outcome is how the run ended, in the words the Runs view uses for
	// it (docs/vocabulary.md): done, failed, refused or cancelled.
	Outcome      string   `json:"outcome"`
	Message      string   `json:"message"`
	Outputs      []string `json:"outputs"`
	VerifyFailed bool     `json:"verifyFailed"`
	// Error describes a failed run as an error reply's data does, so the
	// client offers the same fixes.
	Error *errorData `json:"error,omitempty"`
	// NothingRan is set when no stage started: everything was approved, a
	// gate held, or the run failed before its first stage.
	NothingRan bool `json:"nothingRan,omitempty"`
	// ToolCalls and ToolErrors count the stage's tool calls and failures;
	// Tools says the failures in words ("2 of 5 tool calls failed").
	ToolCalls  int    `json:"toolCalls,omitempty"`
	ToolErrors int    `json:"toolErrors,omitempty"`
	Tools      string `json:"tools,omitempty"`
	// SameOutput is set when the run wrote what was there already, so an
	// approval stands and nothing after the stage goes stale.
	SameOutput bool `json:"sameOutput,omitempty"`
	// Face is the stage's state after the run, in the words of every face.
	Face *state.Face `json:"face,omitempty"`
	// Item is the For each item run again, when one was.
	Item int `json:"item,omitempty"`
	// Findings are the first Verify findings, "file:line: message".
	Findings []string `json:"findings,omitempty"`
	// Rubric, RubricFailed and ReviewGate are the review facts, as a
	// stage's status row has them.
	Rubric       string   `json:"rubric,omitempty"`
	RubricFailed bool     `json:"rubricFailed,omitempty"`
	ReviewGate   []string `json:"reviewGate,omitempty"`
	// Gate is the gate summary's lines (report.Gate), as the status row
	// and the output's lens have them; Manual, for a stage that is the
	// person's step, what its contract says to do.
	Gate   []report.GateLine `json:"gate,omitempty"`
	Manual string            `json:"manual,omitempty"`
}

// start begins a run (the code behind `icm run`, through a session of its
// own) on a goroutine and returns its id at once. Progress goes to the
// client as $/progress; every stage's end as icm/runFinished.
func (r *runs) start(st *snapshot.Workspace, req runRequest) (string, error) {
	op, err := st.OpenSession()
	if err != nil {
		return "", err
	}
	sess := op.Session()
	ctx, cancel := context.WithCancel(r.e.ctx)
	a := &activeRun{cancel: cancel}
	rp := &runProgress{e: r.e, st: st, run: a, item: req.item, single: req.stage != "" && !req.all, stage: req.stage, tools: map[string]int{}, toolErrors: map[string]int{}}
	run, err := sess.Runs().New(session.RunRequest{Stage: req.stage, Item: req.item, Note: req.note, All: req.all, Force: req.force, Committed: req.committed}, rp.event)
	if err != nil {
		cancel()
		op.Release()
		return "", err
	}
	a.id = run.ID()
	a.token = "icm-run-" + a.id
	a.info = snapshot.Running{Stage: req.stage, RunID: a.id, Only: req.item}
	r.mu.Lock()
	if cur, busy := r.active[st.Root()]; busy {
		r.mu.Unlock()
		cancel()
		op.Release()
		return "", fault.Locked(fmt.Sprintf("a run is already going in %s (stage %s, run %s)", filepath.Base(st.Root()), cur.info.Stage, cur.id))
	}
	r.active[st.Root()] = a
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer cancel()
		defer op.Release()
		defer r.e.bg.recoverLog("run " + a.id)
		// VS Code names the notice's source: the title needs no "icm:".
		rp.title = "Running " + filepath.Base(st.Root())
		switch {
		case req.stage != "" && req.item > 0:
			rp.title = fmt.Sprintf("Running %s item %d again", req.stage, req.item)
		case rp.single:
			rp.title = "Running " + req.stage
		}
		rp.ctx, rp.token = ctx, a.token
		sum, err := run.Execute(ctx)
		r.mu.Lock()
		delete(r.active, st.Root())
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
		// The progress ends first: its Cancel must not stay on screen
		// beside the notice that tells how the run ended.
		// Its last words are short, the run's outcome in the Runs view's
		// words: the notice tells the rest, in words for the editor (msg
		// may name a command line).
		outcome := outcomeOf(sess, a.id, err, cancelled)
		if rp.p != nil {
			rp.p.end(outcome)
		}
		if !rp.finishedAny || err != nil {
			// No stage reported its end (nothing to run, the lock was held,
			// the contract was invalid, the model server was not there), or
			// one failed: say how the run ended, with the error's fixes.
			f := runFinished{Workspace: st.Root(), Stage: a.info.Stage, RunID: a.id, OK: err == nil && !cancelled,
				Cancelled: cancelled, Message: msg, Outputs: []string{}, NothingRan: !rp.finishedAny, Item: req.item}
			if rp.failed != nil {
				f = *rp.failed
				f.Message, f.Cancelled = msg, cancelled
			}
			f.Outcome = outcome
			if err != nil {
				fe := fault.From(err)
				f.Error = dataOf(fe)
				if f.Stage == "" {
					f.Stage = fe.Stage
				}
				if fe.Stage != "" {
					// The run was for that stage: it failed, even before
					// it started.
					f.NothingRan = false
				}
			}
			if f.Stage != "" && !f.NothingRan {
				f.Face = st.Face(f.Stage)
			}
			r.e.sendRunFinished(f)
		}
		st.Touch(false)
		r.e.statusChanged(st)
	}()
	return a.id, nil
}

// runProgress turns the engine's events into progress reports.
type runProgress struct {
	e   *env
	st  *snapshot.Workspace
	run *activeRun
	// p is the run's progress, begun at its first stage (a run refused
	// before any work, or with nothing to run, shows none: its end is
	// told by the notice alone); ctx, token and title are what it is
	// begun with.
	p     *progress
	ctx   context.Context
	token string
	title string
	item  int // the For each item the run is for, 0 for whole stages
	// single is a run of one stage, which the progress's title names:
	// its reports do not name it again.
	single bool
	stage  string
	// tools and toolErrors count each stage's tool calls and failures.
	tools       map[string]int
	toolErrors  map[string]int
	finishedAny bool
	// failed is the end of the stage that failed, sent with the run's
	// error once the run returns it.
	failed *runFinished
}

func (rp *runProgress) event(ev report.Event) {
	root := rp.st.Root()
	switch ev.Kind {
	case report.EventStageStart:
		rp.e.runs.update(root, func(i *snapshot.Running) {
			i.Stage, i.Item, i.Items, i.Done, i.Title, i.Going = ev.Stage, 0, 0, 0, "", nil
		})
		if rp.p == nil {
			rp.p = rp.e.client.beginProgress(rp.ctx, rp.token, rp.title, rp.about(ev.Stage, ev.Message))
		} else {
			rp.report(rp.about(ev.Stage, ev.Message), -1)
		}
		rp.e.statusChanged(rp.st)
	case report.EventItemStart, report.EventItemEnd:
		// The progress says what the Pipeline view, the lenses and the
		// status bar say: the one running record's words.
		rp.e.runs.update(root, func(i *snapshot.Running) {
			if ev.Kind == report.EventItemStart {
				i.Started(ev.Index, ev.Count, ev.Done, ev.Item)
			} else {
				i.Ended(ev.Index, ev.Count, ev.Done)
			}
		})
		if now := rp.e.runs.running(root); now != nil {
			_, text := now.Words()
			rp.report(rp.about(ev.Stage, text+rp.failures(ev.Stage)), now.Percent())
		}
		rp.e.statusChanged(rp.st)
	case report.EventTool:
		rp.tools[ev.Stage]++
		t := ev.Tool
		if t != nil && t.IsError {
			rp.toolErrors[ev.Stage]++
			rp.report(rp.about(rp.labelOf(ev), fmt.Sprintf("tool %s failed: %s%s", t.Name, snapshot.FirstLine(t.Err), rp.failures(ev.Stage))), -1)
			return
		}
		name := ""
		if t != nil {
			name = t.Name
		}
		rp.report(rp.about(rp.labelOf(ev), fmt.Sprintf("tool %s · %s%s", name, human.Plural(rp.tools[ev.Stage], "tool call"), rp.failures(ev.Stage))), -1)
	case report.EventModel:
		if ev.Model != nil {
			rp.report(rp.about(rp.labelOf(ev), fmt.Sprintf("model call %d%s", ev.Model.Call, rp.failures(ev.Stage))), -1)
		}
	case report.EventVerify:
		rp.report(rp.about(ev.Stage, ev.Message), -1)
	case report.EventStageEnd:
		rp.finishedAny = true
		outs := make([]string, 0, len(ev.Outputs))
		for _, o := range ev.Outputs {
			outs = append(outs, filepath.Join(root, filepath.FromSlash(o)))
		}
		failed := false
		var findings []string
		for _, v := range ev.Verify {
			failed = failed || !v.OK
			for _, fd := range v.Findings {
				if len(findings) < 3 {
					loc := fd.File
					if fd.Line > 0 {
						loc = fmt.Sprintf("%s:%d", fd.File, fd.Line)
					}
					findings = append(findings, fmt.Sprintf("%s: %s (%s)", loc, fd.Message, v.Check))
				}
			}
		}
		f := runFinished{Workspace: root, Stage: ev.Stage, RunID: ev.RunID, OK: ev.Err == "",
			Cancelled: errors.Is(rp.e.ctx.Err(), context.Canceled) || rp.cancelled(), Message: ev.Message, Outputs: outs, VerifyFailed: failed,
			ToolCalls: rp.tools[ev.Stage], ToolErrors: rp.toolErrors[ev.Stage], Item: rp.item, Findings: findings,
			SameOutput: ev.Err == "" && ev.SameOutput, Outcome: report.RunDone, Gate: ev.Gate.Lines(nil), Manual: ev.Manual}
		if n := rp.toolErrors[ev.Stage]; n > 0 {
			f.Tools = human.Failed(n, rp.tools[ev.Stage], "tool call")
		}
		if f.Cancelled {
			f.Outcome = report.RunCancelled
		}
		finishedReview(&f, ev)
		f.Face = rp.st.Face(ev.Stage)
		if ev.Err != "" {
			rp.failed = &f // sent with the run's error
		} else {
			rp.e.sendRunFinished(f)
		}
		rp.e.statusChanged(rp.st)
	}
}

// outcomeOf is how a run that returned err ended, as its trace tells it
// (the Runs view reads the same trace): a run that failed before it did
// any work, its trace not even begun, was refused.
func outcomeOf(sess *session.Session, runID string, err error, cancelled bool) string {
	switch {
	case cancelled:
		return report.RunCancelled
	case err == nil:
		return report.RunDone
	}
	tr, terr := sess.History().Run(runID)
	switch {
	case terr != nil:
		return report.RunRefused
	case tr.Status == report.RunRefused, tr.Status == report.RunCancelled:
		return tr.Status
	}
	return report.RunFailed
}

// failures is " · 2 of 5 tool calls failed" once a stage's tool calls
// have failed, so the progress keeps saying it after later steps.
func (rp *runProgress) failures(stage string) string {
	n := rp.toolErrors[stage]
	if n == 0 {
		return ""
	}
	return " · " + human.Failed(n, rp.tools[stage], "tool call")
}

func (rp *runProgress) cancelled() bool {
	rp.e.runs.mu.Lock()
	defer rp.e.runs.mu.Unlock()
	return rp.run.cancelled
}

func (rp *runProgress) report(msg string, pct int) {
	if rp.p != nil {
		rp.p.report(msg, pct)
	}
}

// labelOf names what an event is about: "04-draft item 3", "04-draft";
// in a run of one stage, which the title names, "item 3" or nothing.
func (rp *runProgress) labelOf(ev report.Event) string {
	stage := ev.Stage
	if rp.single {
		stage = ""
	}
	if ev.Item != "" {
		return strings.TrimSpace(fmt.Sprintf("%s item %d", stage, ev.Index))
	}
	return stage
}

// about is a report about what: "01-scope: model call 1", or "model
// call 1" when what is the title's stage (or nothing).
func (rp *runProgress) about(what, msg string) string {
	if what == "" || rp.single && what == rp.stage {
		return msg
	}
	return what + ": " + msg
}

func (e *env) sendRunFinished(f runFinished) {
	if err := e.client.notify(notifyRunFinished, f); err != nil {
		e.log.Info("unable to send runFinished", "err", err)
	}
}

// finishedReview fills a runFinished's review facts from the stage-end
// event: the rubric's line and the checklist the person reviews against.
func finishedReview(f *runFinished, ev report.Event) {
	f.Rubric = state.RubricLine(ev.Rubric)
	pass, of, _ := state.RubricCount(ev.Rubric)
	f.RubricFailed = pass < of
	f.ReviewGate = contract.ReviewItems(ev.ReviewGate)
}
