// Package workflow is the run engine: it runs a workspace's stages in
// folder order, one at a time, and stops at each review gate. A stage is
// either a model stage (the assembled context goes through the agent loop
// with the stage's tools, once, or once per For each item) or a Script
// stage (a command). Outputs are written atomically with the previous
// version kept in history; a run record binds what the stage read to what
// it wrote, so later changes mark it stale; every step is traced to
// history/<run-id>.jsonl, and read back from there (History, Run,
// FindExchange, FindToolCall). What it emits and reads back is package
// report's data (report.Event, report.Summary, report.RunSummary): one
// definition, which the front ends render without importing this
// package; they reach it only through package session.
package workflow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Gate modes.
const (
	GateExplicit = "explicit"
	GateRerun    = "rerun"
)

// Toolset is a stage's running tool servers, as the agent loop uses them.
type Toolset interface {
	agent.Tools
	Close() error
}

// ToolRequest is what a stage asks of its tool servers.
type ToolRequest struct {
	// Allow lists the tools the stage may call (server -> tool names; nil
	// names mean all of that server's tools).
	Allow map[string][]string
	// Env is the stage's child environment (ChildEnv) for icm's own
	// servers, so they read the model the stage runs on.
	Env map[string]string
	// Permit is the run's (Options.Permit): each server asks it as it
	// starts or connects.
	Permit act.Permit
}

// ToolOpener starts the MCP servers a stage names.
type ToolOpener func(ctx context.Context, req ToolRequest) (Toolset, error)

// Options configure a run.
type Options struct {
	// Client talks to the model server.
	Client llm.Client
	// Model, when set, is the model setting laid over every contract's
	// ## Model and config.toml (the editor's icm.model): part of the
	// configured settings, so changing it makes the stages it changes
	// stale.
	Model string
	// Override, when set, is a model for this run only (icm run --model):
	// the stages it runs call it instead of the configured model, and
	// their records keep it as the model they ran with beside the
	// configured one it stood in for. State is judged by the configured
	// settings, so a stage run with an override and approved stays
	// approved until the configured model itself changes.
	Override string
	// Stage, when set, runs that stage only (even if it is approved).
	Stage string
	// Item, with Stage, runs that one item (1-based) of a For each stage
	// again and replaces only its section of the output.
	Item int
	// Note is a person's feedback on the item's previous answer, given to
	// that one call (with Item).
	Note string
	// All runs every stage that needs it without stopping at gates.
	All bool
	// Force overwrites outputs a person edited without approving them.
	Force bool
	// Gate overrides [workflow] gate ("explicit" or "rerun").
	Gate string
	// Seed, when set, is sent with every model call of the run (stage
	// tests fix one per repeat).
	Seed *int
	// Tools starts MCP servers; nil means stages with tools cannot run.
	Tools ToolOpener
	// Permit is asked as each Script stage, `run:` check and tool server
	// of the run is about to start (package act): the workspace's trust,
	// for the files of the workspace the run is in. nil refuses them all.
	Permit act.Permit
	// Check are the options every check of the run uses: the session's
	// (session.CheckOptions), so a stage the editor and icm check call
	// broken is the stage a run refuses. The zero value checks with
	// config.toml's tool servers and no window.
	Check check.Options
	// CodeBlocks runs `code-blocks` Verify checks; nil makes them fail as unavailable.
	CodeBlocks verify.CodeChecker
	// Self is the icm binary Script stages can call as $ICM_BIN; "" means
	// this executable.
	Self string
	// ChildEnv is passed on to icm's own child processes (see ChildEnv).
	ChildEnv map[string]string
	// Count, when set, counts a stage's first calls as the model server
	// will read them, before they are made, for model (exact where the
	// model's tokenizer or the server can count); calls is how many first
	// calls that is (one per For each item), and complete is false when
	// part of them could not be counted (tool definitions not listed).
	// The stage's start event shows a complete exact count instead of the
	// estimate. nil: the start event shows the estimate.
	Count func(ctx context.Context, st *workspace.Stage, c *contract.Contract, model string) (n tokens.Count, calls int, complete bool)
	// Progress receives every event as it happens, one at a time (never
	// concurrently, even while For each items run in parallel).
	Progress func(report.Event)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ReadWorkspace lets a stage's model read any file of the workspace
	// through icm's read tool, not only those its contract names: the
	// person's own setting ([reads] workspace in their settings file),
	// or the workspace's config.toml asking for it once the person
	// trusted that.
	ReadWorkspace bool
	// Embedder, when set, is the embedding model the evidence after a
	// model stage asks for a semantic score ([evidence] embed_model).
	Embedder evidence.Embedder
	// Caches is what the session knows of the model servers' prompt
	// caches beyond config.toml's [model] slots and multiuser_cache (a
	// server icm started itself), laid over config.toml's; the zero
	// value: config.toml's alone.
	Caches llm.Caches
	// Committed answers the question a workspace with outputs committed
	// with it, not made by icm, asks before its first run:
	// state.KeepCommitted keeps them as approved,
	// state.RegenerateCommitted runs their stages again
	// (the committed files kept in history). "" asks: the run refuses with
	// a fault whose actions are the two answers.
	Committed string
	// Submission, with Stage, is a run of that stage whose outputs a
	// coding agent hands in (the workspace MCP server's submit_outputs):
	// no model is called, and the run stops at the gate whatever the
	// contract's Gate says, since an agent's outputs wait for a person.
	Submission *Submission
}

// Engine runs stages of one workspace.
type Engine struct {
	ws    *workspace.Workspace
	opts  Options
	runID string
	trace *trace
	// submitted is the Submission as accepted for its stage.
	submitted *submitted
	// prefill is the run's account of the prompts it sent to each model
	// server, which predicts what each server reused of each prompt.
	prefill *llm.Prefill
	// answered is set once a model call of this run has been answered:
	// a server that refuses connections after that stopped mid-run.
	answered atomic.Bool
	// emitMu serialises events: For each items run concurrently, and
	// observers (the printer, the editor's progress, telemetry) then see
	// one event at a time, in the order they were stamped.
	emitMu sync.Mutex
	// lock is the run lock while Run holds it: it tells others which
	// stage the run works on.
	lock *state.Lock
}

// New prepares a run of ws.
func New(ws *workspace.Workspace, opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	// A run acts on the settings as written or not at all: never on the
	// defaults standing in for a config.toml icm could not read.
	if f := ws.ConfigFault(); f != nil {
		return nil, f
	}
	gateFile := ""
	if opts.Gate == "" {
		opts.Gate, gateFile = ws.Config.Workflow.Gate, ws.Config.Path
	}
	if opts.Item > 0 && opts.Stage == "" {
		return nil, fault.InvalidRequest(fmt.Sprintf("an item (--item %d) needs its stage (--stage)", opts.Item),
			"name the stage the item belongs to")
	}
	if opts.Submission != nil && (opts.Stage == "" || opts.Item > 0 || opts.All) {
		return nil, fault.InvalidRequest("outputs handed in by an agent are for one whole stage, named",
			"name the one stage the outputs are for, and hand in its outputs whole")
	}
	if opts.Item < 0 {
		return nil, fault.InvalidRequest(fmt.Sprintf("item %d: items are numbered from 1", opts.Item), "name an item by its number, from 1")
	}
	if opts.Gate != GateExplicit && opts.Gate != GateRerun {
		return nil, fault.ConfigInvalid(fmt.Sprintf("unknown gate mode %q; use %q or %q", opts.Gate, GateExplicit, GateRerun),
			fmt.Sprintf("set the gate to %q or %q", GateExplicit, GateRerun), gateFile)
	}
	caches := llm.CachesOf(ws.Config.Model).With(opts.Caches)
	return &Engine{ws: ws, opts: opts, runID: NewRunID(opts.Now()), prefill: llm.NewPrefill(caches)}, nil
}

// RunID returns the id of the run this engine performs.
func (e *Engine) RunID() string { return e.runID }

// NewRunID makes a run id that sorts by time: 20261130-101502-3fa2c1.
func NewRunID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (e *Engine) emit(ev report.Event) {
	e.emitMu.Lock()
	defer e.emitMu.Unlock()
	ev.RunID = e.runID
	ev.Schema = report.EventSchema
	if ev.Kind == report.EventModel && ev.Model != nil && ev.Model.Err == "" {
		e.answered.Store(true)
	}
	if ev.Time.IsZero() {
		ev.Time = e.opts.Now()
	}
	e.trace.write(ev)
	if e.opts.Progress != nil {
		e.opts.Progress(ev)
	}
}

// Run runs the next stage that needs it (or the one named in Options.Stage,
// or all of them with Options.All) and stops at the review gate. It holds
// the workspace's run lock throughout.
func (e *Engine) Run(ctx context.Context) (*report.Summary, error) {
	lock, err := state.Acquire(e.ws.Disk, "icm run")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	e.lock = lock
	e.sweep()
	sum := &report.Summary{RunID: e.runID}
	start := e.opts.Now()
	defer func() {
		if e.trace != nil {
			var in, out int
			for _, r := range sum.Ran {
				in += r.Prompt
				out += r.Output
			}
			e.emit(report.Event{Kind: report.EventRunEnd, Message: sum.Next.Message, Duration: e.opts.Now().Sub(start), PromptTokens: in, OutputTokens: out})
			e.trace.close()
		}
	}()
	if e.opts.Item == 0 && e.opts.Submission == nil {
		if stop, err := e.committed(sum); err != nil || stop {
			return sum, err
		}
	}
	ran := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		rep := check.Run(e.ws, e.opts.Check)
		p, err := rep.Pipeline(e.opts.Model)
		if err != nil {
			return sum, err
		}
		sum.Next = p.Next
		target, stop, err := e.pick(p, rep, ran, sum)
		if err != nil || stop {
			if err == nil && len(sum.Ran) > 0 {
				// The state after the last stage ran.
				if p2, err2 := e.pipeline(); err2 == nil {
					sum.Next = p2.Next
				}
			}
			return sum, err
		}
		if e.opts.Submission != nil && e.submitted == nil {
			// Refused before the trace opens (the first stage's start
			// opens it): a refusal leaves no run.
			if e.submitted, err = e.acceptSubmission(rep, target); err != nil {
				return sum, err
			}
		}
		ran[target.Stage.Name] = true
		res, err := e.runStage(ctx, rep, target, stateOf(p, target.Stage.Name))
		if res != nil {
			sum.Ran = append(sum.Ran, res)
			if res.AutoApproved {
				sum.Approved = append(sum.Approved, res.Stage)
			}
		}
		if err != nil {
			return sum, err
		}
		if e.opts.Stage != "" || res.Manual != "" {
			p2, err := e.pipeline()
			if err == nil {
				// The gate is the stage's that ran, whatever waits
				// before it.
				sum.Next = p2.StepOf(target.Stage.Name)
			}
			if e.opts.Submission != nil {
				e.emit(report.Event{Kind: report.EventGate, Stage: res.Stage, Status: string(state.Awaiting), Message: sum.Next.Message})
			}
			return sum, nil
		}
		if !e.opts.All && !res.AutoApproved {
			p2, err := e.pipeline()
			if err == nil {
				sum.Next = p2.Next
			}
			e.emit(report.Event{Kind: report.EventGate, Stage: res.Stage, Status: string(state.Awaiting), Message: sum.Next.Message})
			return sum, nil
		}
	}
}

// begin starts the run's trace when its first stage starts work: a run
// refused before any stage started (an edited output, an invalid
// contract, a gate) did nothing and leaves no trace to list as a run.
func (e *Engine) begin() error {
	if e.trace != nil {
		return nil
	}
	t, err := openTrace(e.ws, e.runID)
	if err != nil {
		return err
	}
	e.trace = t
	ev := report.Event{Kind: report.EventRunStart, Message: "run " + e.runID + " in " + e.ws.Root}
	if e.opts.Item > 0 {
		// An item re-run, and the person's note for it, are facts of the run.
		ev.Stage, ev.Index, ev.Note = e.opts.Stage, e.opts.Item, e.opts.Note
	}
	e.emit(ev)
	return nil
}

// sweep removes what writes of runs that were killed left half done: the
// temporary files of atomic writes in the folders only icm writes. It
// runs with the lock held, so no other run is writing there.
func (e *Engine) sweep() {
	dirs := []string{filepath.Join(e.ws.Root, state.StateDir), filepath.Join(e.ws.Root, workspace.HistoryDir)}
	for _, st := range e.ws.Stages {
		dirs = append(dirs, filepath.Join(st.Dir, workspace.OutputDir), filepath.Join(st.Dir, state.StateDir))
	}
	_, _ = e.ws.Disk.SweepTemps(dirs...) // what cannot be removed now is tried again by the next run
}

// pick chooses the stage to run next; stop is true when the run should end
// (at a gate, or with nothing left to do).
func (e *Engine) pick(p *state.PipelineState, rep *check.Report, ran map[string]bool, sum *report.Summary) (*check.StageReport, bool, error) {
	if e.opts.Stage != "" {
		st, err := e.ws.Stage(e.opts.Stage)
		if err != nil {
			return nil, false, err
		}
		if ran[st.Name] {
			return nil, true, nil
		}
		return rep.Stage(st.Name), false, nil
	}
	for i, s := range p.Stages {
		name := e.ws.Stages[i].Name
		switch s.Status {
		case state.Approved:
			continue
		case state.Awaiting:
			if ran[name] && e.opts.All {
				continue
			}
			if e.opts.Gate == GateRerun && !ran[name] {
				if (s.VerifyFailed || s.RubricFailed) && !e.opts.Force {
					return nil, true, fault.RerunWouldApprove(name)
				}
				if err := e.approve(e.ws.Stages[i], rep.Stage(name).Contract, "rerun"); err != nil {
					return nil, true, err
				}
				sum.Approved = append(sum.Approved, name)
				continue
			}
			if e.opts.All {
				continue
			}
			return nil, true, nil
		case state.Invalid:
			return nil, true, e.invalid(rep, name)
		default:
			if ran[name] {
				f := fault.RunFailed(name, s.Reason)
				f.Msg = fmt.Sprintf("stage %s did not finish: %s", name, s.Reason)
				return nil, true, f
			}
			return rep.Stage(name), false, nil
		}
	}
	return nil, true, nil
}

func (e *Engine) invalid(rep *check.Report, name string) error {
	sr := rep.Stage(name)
	if sr == nil || sr.Contract == nil {
		return noContract(name)
	}
	if err := invalidStage(rep, sr); err != nil {
		return err
	}
	return fault.ContractInvalid(name, sr.Stage.Contract, 0, []string{"its contract has errors"})
}

// pipeline checks the workspace afresh and derives the stages' states.
func (e *Engine) pipeline() (*state.PipelineState, error) {
	return check.Run(e.ws, e.opts.Check).Pipeline(e.opts.Model)
}

func stateOf(p *state.PipelineState, name string) *state.StageState {
	for _, s := range p.Stages {
		if s.Stage == name {
			return s
		}
	}
	return nil
}
