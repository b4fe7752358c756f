package session

import (
	"context"
	"errors"
	"time"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// RunRequest says what a run covers.
type RunRequest struct {
	// Stage runs that one stage (even when approved); "" runs the next
	// stage that needs it.
	Stage string
	// Item, with Stage, runs only that For each item (1-based) again and
	// replaces only its section of the output; Note is feedback for that
	// one call.
	Item int
	Note string
	// All goes on through the gates.
	All bool
	// Force overwrites outputs edited without approval (and lets a gate
	// "rerun" approve despite failing Verify checks).
	Force bool
	// Committed answers the question a workspace with outputs committed
	// with it (not made by icm) asks at its first run: CommittedAdopt
	// keeps them as approved, CommittedRegenerate runs their stages again
	// (the committed files kept in history); "" asks, as a fault whose
	// actions are the two answers.
	Committed string
	// PastGate runs Stage even though an earlier stage whose output it
	// reads is not approved: a person said so (asked at a terminal).
	// Without it such a run is refused, as a run of the next stage stops
	// at that stage's gate.
	PastGate bool
	// Model is a model for this run only (icm run --model): a fact of the
	// run, not a change of settings. The stages it runs call it, their
	// records keep it beside the configured model it stood in for, and
	// they are judged by the configured settings, so once approved they
	// stay approved until the configured model itself changes.
	Model string
}

// Run is a run made ready: its id is known before it starts.
type Run struct {
	s       *Session
	req     RunRequest
	eng     *workflow.Engine
	observe func(report.Event)
	// handIn is set for an agent's Submission: no model is called.
	handIn bool
}

// New prepares a run; observe (may be nil) receives every event, one
// at a time.
func (rn Runs) New(req RunRequest, observe func(report.Event)) (*Run, error) {
	s := rn.s
	if f := s.ws.ConfigFault(); f != nil {
		return nil, f
	}
	if err := s.Trust().Require("run its stages"); err != nil {
		return nil, err
	}
	client, err := s.modelClient()
	if err != nil {
		return nil, err
	}
	reads, err := s.readsWorkspace()
	if err != nil {
		return nil, err
	}
	r := &Run{s: s, req: req, observe: observe}
	eng, err := workflow.New(s.ws, workflow.Options{
		Client:    client,
		Model:     s.opts.Settings.Model,
		Override:  req.Model,
		Gate:      s.opts.Settings.Gate,
		Stage:     req.Stage,
		Item:      req.Item,
		Note:      req.Note,
		All:       req.All,
		Force:     req.Force,
		Committed: req.Committed,
		Tools:     s.box.Opener(s.toolOptions(s.ws.Root)),
		Permit:    s.permit(),
		Check:     s.CheckOptions(CheckFacts{}),
		Self:      s.opts.Self,
		ChildEnv:  s.inherited(),
		// code-blocks Verify checks run in this binary's sandbox.
		CodeBlocks: s.codeBlocks(),
		Count:      s.Counts().firstCalls,
		Progress:   r.event,
		// What the model may read beyond what the contracts name.
		ReadWorkspace: reads,
		Embedder:      s.embedder(),
	})
	if err != nil {
		return nil, fault.From(err)
	}
	r.eng = eng
	return r, nil
}

// ID is the run's id (the name of its trace in history/).
func (r *Run) ID() string { return r.eng.RunID() }

// event passes an engine event to the observer: the caller's, with the
// span exporter laid over it while the run executes when tracing is on
// (see trace).
func (r *Run) event(ev report.Event) {
	if r.observe != nil {
		r.observe(ev)
	}
}

// Execute runs the stages and stops at the review gate (or goes on with
// All). A model server that does not answer fails it at once when the
// first stage needs a model. Whatever happens, the run's spans are sent
// before it returns. Errors are *fault.Error.
func (r *Run) Execute(ctx context.Context) (*report.Summary, error) {
	if err := r.upstream(ctx); err != nil {
		return nil, err
	}
	if err := r.reach(ctx); err != nil {
		return nil, err
	}
	stop := r.s.trace(ctx, r)
	defer stop()
	sum, err := r.eng.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return sum, fault.Cancelled("cancelled", err)
		}
		// A server lost mid-run is told as one that did not answer before
		// the run: the same words about this machine, the same fixes.
		fe := fault.From(err)
		if fe.Kind == fault.KindModelUnreachable {
			fe = r.s.onThisMachine(fe, r.modelOf(r.s.Check(nil), fe.Stage))
		}
		return sum, fe
	}
	return sum, nil
}

// modelOf is the model stage runs with, for the fixes of a server that
// does not answer (the one to pull after installing); "" when it cannot
// be told.
func (r *Run) modelOf(rep *check.Report, stage string) string {
	sr := rep.Stage(stage)
	if sr == nil || sr.Contract == nil {
		return ""
	}
	return state.ResolveSettings(r.s.ws.Config.Model, sr.Contract.Model, r.s.opts.Settings.Model).Override(r.req.Model).Model()
}

// reach fails a run that needs a model server that does not answer
// before it starts, noting the failure in the stage's state as when a
// run fails midway. An agent's Submission calls no model.
func (r *Run) reach(ctx context.Context) error {
	if r.handIn {
		return nil
	}
	stage, err := r.reachable(ctx)
	if err != nil && stage != "" {
		if werr := workflow.NoteFailure(r.s.ws, stage, r.ID(), err, time.Now()); werr != nil {
			r.s.warn("the failed run was not recorded: " + werr.Error())
		}
	}
	return err
}

// reachable fails fast, with how to start it, when the stage about to run
// needs a model and its server does not answer, instead of after the
// retries of the first call. stage names that stage.
func (r *Run) reachable(ctx context.Context) (stage string, err error) {
	rep := r.s.Check(nil)
	p, err := rep.Pipeline(r.s.opts.Settings.Model)
	if err != nil {
		return "", nil // the run itself reports it
	}
	name := r.req.Stage
	if name == "" {
		if p.Next.Action != state.ActionRun && !r.req.All {
			return "", nil
		}
		name = p.Next.Stage
	}
	if sr := rep.Stage(name); sr != nil && sr.Contract != nil && (sr.Contract.Script != nil || sr.Contract.Manual() != nil) && !r.req.All {
		return "", nil // a Script stage, or a person's step, needs no model
	}
	for _, s := range p.Stages {
		if s.Stage == name && s.Committed && r.req.Committed != state.RegenerateCommitted {
			return "", nil // the run asks about its outputs first, or keeps them
		}
	}
	client, err := r.s.modelClient()
	if err != nil {
		return "", err
	}
	if err := llm.Ping(ctx, client); err != nil {
		return name, r.s.onThisMachine(fault.From(err), r.modelOf(rep, name)).In(name)
	}
	return "", nil
}

// codeBlocks is the checker `code-blocks` Verify checks run in: this
// binary's sandbox.
func (s *Session) codeBlocks() verify.CodeChecker { return &codecheck.Checker{} }
