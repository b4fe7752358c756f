package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/schemas"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workspace"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// EditedError says a stage's output holds changes nobody approved.
type EditedError struct {
	Stage string
	// Outputs are workspace-relative; File is the first one's absolute path.
	Outputs []string
	File    string
	// Unrun is set when no run wrote them: they were there before any.
	Unrun bool
}

func (e *EditedError) Error() string { return e.Fault().Msg }

// Fault offers approving the edit or overwriting it.
func (e *EditedError) Fault() *fault.Error {
	if e.Unrun {
		return fault.Committed(e.Stage, []string{e.Stage + ": " + strings.Join(e.Outputs, ", ")}, e.File)
	}
	return fault.EditedOutput(e.Stage, e.Outputs, e.File)
}

// run is the work of one stage in progress.
type run struct {
	e  *Engine
	sr *check.StageReport
	st *workspace.Stage
	c  *contract.Contract
	// settings are what the stage's calls use; configured are the
	// configured settings they were made under (the same but for a
	// one-off Options.Override), what the record hashes.
	settings, configured state.Settings
	inputs               map[string]string
	// client is the run's model client with the contract's fallback
	// models (model: a, b) laid over it.
	client llm.Client
	// prev is the stage's record from before this run: a run that fails
	// puts it back, so the last good run's outputs and approval stay valid.
	prev *state.Record
	// touched is set once the outputs start changing (a model stage's
	// writes, a script's outputs moving into output/): a failure from then
	// on may have changed them, so the last good record no longer fits.
	touched bool
	// prov collects where the URLs the model may cite came from.
	prov *verify.Provenance
	// written is what the model wrote, kept beside the state on commit.
	written *Written
	// set holds the files the model names, for a stage that writes
	// through the write tool (nil otherwise).
	set *writeout.Set
	// tools is set when the stage's model can call tools (prepare): its
	// calls may offer icm's read tool.
	tools bool
	// reads are the files the model read through the read tool, with
	// their hashes as read (guarded by mu).
	reads map[string]string
	// cur is the stage's state before this run (nil when unknown).
	cur *state.StageState
	// proposed are the changes the model wrote to files outside output/;
	// writes what it wrote against what the contract declares (nil for a
	// stage whose answer is its one output).
	proposed []proposal
	writes   *state.Writes
	// rep is the check the run was made on; warnings what it warned of
	// in the stage's contract, kept with the run for its gate.
	rep      *check.Report
	warnings []state.Warning
	// results are the texts the run's tool calls returned (guarded by mu).
	results state.ToolResults
	// evidenceClean says every unit of the outputs is supported and
	// nothing is marked (set with res.Evidence).
	evidenceClean bool
	// mu guards res, prov and done while For each items run concurrently.
	mu  sync.Mutex
	res *report.StageResult
	// done counts the For each items finished so far.
	done int
}

// emitItem sends an item event with how many items have finished (one
// more first, with finished): the count and the sending happen together,
// so the events carry counts that only grow, in the order they are sent.
func (r *run) emitItem(ev report.Event, finished bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if finished {
		r.done++
	}
	ev.Done = r.done
	if ev.Message == "" && finished {
		ev.Message = fmt.Sprintf("[%d/%d] %s done (%d of %d finished)", ev.Index, ev.Count, ev.Item, r.done, ev.Count)
	}
	r.e.emit(ev)
}

func (e *Engine) runStage(ctx context.Context, rep *check.Report, sr *check.StageReport, cur *state.StageState) (*report.StageResult, error) {
	st, c := sr.Stage, sr.Contract
	if c == nil {
		return nil, noContract(st.Name)
	}
	if err := invalidStage(rep, sr); err != nil {
		return nil, err
	}
	if e.opts.Item > 0 {
		// One item again keeps the person's edits in the others.
		return e.rerunItem(ctx, rep, sr, cur)
	}
	if m := c.Manual(); m != nil && e.opts.Submission == nil {
		r, err := e.newRun(rep, sr, cur)
		if err != nil {
			return nil, err
		}
		return r.manual(m)
	}
	if cur != nil && cur.HumanEdited() && !e.opts.Force {
		var outs []string
		for p, h := range cur.Outputs {
			if h != state.Missing {
				outs = append(outs, p)
			}
		}
		sort.Strings(outs)
		ee := &EditedError{Stage: st.Name, Outputs: outs, Unrun: cur.Record == nil && cur.Approval == nil}
		if len(outs) > 0 {
			ee.File = e.ws.Abs(outs[0])
		}
		return nil, ee
	}
	r, err := e.newRun(rep, sr, cur)
	if err != nil {
		return nil, err
	}
	if err := e.refused(rep, sr); err != nil {
		// Refused before it began: nothing ran, and its state stays.
		return nil, err
	}
	if err := e.begin(); err != nil {
		return nil, err
	}
	if e.lock != nil {
		e.lock.Working(st.Name)
	}
	start := e.opts.Now()
	e.emit(report.Event{Kind: report.EventStageStart, Stage: st.Name, Message: r.describe(ctx)})
	if c.Script != nil {
		// A script writes its outputs itself: keep the old ones first.
		if err := e.keepVersions(st, cur); err != nil {
			return nil, err
		}
		var before map[string]string
		if cur != nil {
			before = cur.Outputs
		}
		if err := state.WriteRecord(e.ws.Disk, st.Dir, r.record(state.RunWriting, nil, before)); err != nil {
			return nil, err
		}
	}
	outputs, err := r.produce(ctx, rep)
	r.res.Duration = e.opts.Now().Sub(start)
	if err != nil {
		err = r.explainLost(err)
		r.fail(err)
		return r.res, err
	}
	if err := r.commit(ctx, outputs, cur); err != nil {
		r.fail(err)
		return r.res, err
	}
	return r.res, nil
}

// newRun prepares the run of a stage: its settings, what it reads now,
// and its last record, which a failure puts back.
func (e *Engine) newRun(rep *check.Report, sr *check.StageReport, cur *state.StageState) (*run, error) {
	st, c := sr.Stage, sr.Contract
	r := &run{e: e, sr: sr, st: st, c: c, cur: cur, res: &report.StageResult{Stage: st.Name},
		rep: rep, warnings: warningsOf(e.ws, rep, sr)}
	if cur != nil {
		r.prev = cur.Record
	}
	r.settings, r.configured = e.settingsOf(c)
	var err error
	if r.inputs, err = state.Fingerprint(e.ws, st, c); err != nil {
		return nil, err
	}
	return r, nil
}

// describe says what the stage is about to do, for the stage-start event.
func (r *run) describe(ctx context.Context) string {
	if r.c.Script != nil {
		return "script"
	}
	if sub := r.e.opts.Submission; sub != nil {
		return "outputs handed in by " + state.AgentPrefix + sub.Agent
	}
	tok := ""
	if r.sr.Context != nil {
		tok = human.Estimate(r.sr.Context.Total) + " -> "
	}
	if count := r.e.opts.Count; count != nil {
		// The count the server will read, where it can be known before
		// the call; a slow counter does not hold the stage up for long.
		cctx, cancel := context.WithTimeout(ctx, countWait)
		n, calls, complete := count(cctx, r.st, r.c, r.settings.Model())
		cancel()
		if complete && n.Known() {
			tok = human.Tokens(n.Tokens) + " -> "
			if calls > 1 {
				tok = fmt.Sprintf("%d calls, %s -> ", calls, human.Tokens(n.Tokens))
			}
		}
	}
	return tok + r.settings.Model()
}

// countWait bounds counting a stage's first calls before it starts.
const countWait = 5 * time.Second

// produce does the stage's work and returns the new output texts by
// workspace-relative path (nil for a script, which writes them itself).
func (r *run) produce(ctx context.Context, rep *check.Report) (map[string][]byte, error) {
	if r.c.Script != nil {
		return nil, r.script(ctx)
	}
	if r.e.submitted != nil {
		return r.handIn()
	}
	if writeout.Needed(r.c) {
		sess, cfg, err := r.prepare(ctx)
		if err != nil {
			return nil, err
		}
		if sess != nil {
			defer sess.Close()
		}
		return r.files(ctx, rep, sess, cfg)
	}
	out, err := modelOutput(r.e.ws, r.st, r.c)
	if err != nil {
		return nil, err
	}
	sess, cfg, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		defer sess.Close()
	}
	r.written = &Written{RunID: r.e.runID, Output: out}
	var text string
	if r.c.ForEach != nil {
		text, err = r.forEach(ctx, rep, sess, cfg)
	} else {
		text, err = r.single(ctx, rep, sess, cfg)
	}
	if err != nil {
		return nil, err
	}
	return map[string][]byte{out: []byte(strings.TrimRight(text, "\n") + "\n")}, nil
}

// prepare readies a model stage's calls: its tool servers (nil when it
// has none; the caller closes them), the agent settings and the model
// client with the contract's fallback models.
func (r *run) prepare(ctx context.Context) (Toolset, agent.Config, error) {
	if r.e.opts.Client == nil {
		return nil, agent.Config{}, fault.ConfigInvalid(fmt.Sprintf("stage %s needs a model, but no model server is configured", r.st.Name),
			"set up [model] in config.toml: the server and the model name", r.e.ws.Config.Path)
	}
	cfg, err := r.agentConfig()
	if err != nil {
		return nil, cfg, err
	}
	if len(r.settings.Models) > 1 {
		r.client = llm.Fallback(r.e.opts.Client, r.settings.Models[1:]...)
	} else {
		r.client = r.e.opts.Client
	}
	allow := r.c.Tools.Allowed()
	r.prov = verify.NewProvenance(len(allow) > 0)
	r.tools = len(allow) > 0 || r.callsTools(ctx, cfg.Model)
	if len(allow) == 0 {
		return nil, cfg, nil
	}
	if r.e.opts.Tools == nil {
		return nil, cfg, fault.ToolFailed(fmt.Sprintf("stage %s uses tools, but no MCP servers can be started here", r.st.Name), r.st.Name, nil)
	}
	sess, err := r.e.opts.Tools(ctx, ToolRequest{Allow: allow, Env: r.childEnv(), Permit: r.e.opts.Permit})
	if err != nil {
		if ctx.Err() != nil {
			return nil, cfg, ctx.Err()
		}
		return nil, cfg, fault.ToolFailed(fmt.Sprintf("stage %s: unable to start its tools: %v", r.st.Name, err), r.st.Name, err)
	}
	return sess, cfg, nil
}

// modelOutput is the file a model stage writes its answer to: its first
// declared output with a concrete name.
func modelOutput(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) (string, error) {
	if o, ok := c.ModelOutput(); ok {
		return path.Join(st.Rel, o.Path), nil
	}
	// The contract's to fix: the error opens it at its first output (icm
	// check notes the same there).
	line := 0
	if len(c.Outputs) > 0 {
		if src, err := ws.Files.ReadFile(st.Contract); err == nil {
			if pos, err := document.NewMapper(src).Position(c.Outputs[0].PathRange.Start); err == nil {
				line = pos.Line + 1
			}
		}
	}
	return "", fault.ContractInvalid(st.Name, st.Contract, line, []string{"every output holds a placeholder or names a folder; " + contract.NoModelOutputHint})
}

func (r *run) agentConfig() (agent.Config, error) {
	wf := r.e.ws.Config.Workflow
	cfg := agent.Config{
		Stage:              r.st.Name,
		Model:              r.settings.Model(),
		Temperature:        r.settings.Temperature,
		Seed:               r.e.opts.Seed,
		Think:              r.settings.Think,
		NumCtx:             r.settings.NumCtx,
		MaxOutput:          r.settings.MaxOutput,
		MaxToolCalls:       wf.MaxToolCalls,
		MaxToolResultChars: wf.MaxToolResultChars,
		Synthesize:         true,
		Prefill:            r.e.prefill,
	}
	if cfg.Model == "" {
		return cfg, fault.NoModelNamed(r.st.Name, r.e.ws.Config.Path)
	}
	switch f := r.settings.Format; f {
	case "":
	case "json":
		cfg.Format = json.RawMessage(`"json"`)
	default:
		abs, err := r.e.ws.Resolve(r.st.Dir, f)
		if err != nil {
			return cfg, fmt.Errorf("stage %s: format: %w", r.st.Name, err)
		}
		raw, err := r.e.ws.Files.ReadFile(abs)
		if err != nil {
			return cfg, fmt.Errorf("stage %s: unable to read the format schema: %w", r.st.Name, err)
		}
		// Compiled only to refuse what it may not name (a file outside, a
		// web address) and what no model could follow: the model server
		// gets the file as written.
		if _, err := schemas.CompileIn(r.e.ws, abs, raw); err != nil {
			return cfg, fmt.Errorf("stage %s: the format schema %s cannot be used: %w", r.st.Name, f, err)
		}
		cfg.Format = json.RawMessage(raw)
	}
	return cfg, nil
}

// single runs the stage as one agent loop.
func (r *run) single(ctx context.Context, rep *check.Report, sess Toolset, cfg agent.Config) (string, error) {
	actx, err := assemble.Stage(r.e.ws, r.st, r.c, assemble.Options{ProducedBy: rep.ProducedBy, Order: rep.Order, NoReadTool: !r.tools})
	if err != nil {
		return "", err
	}
	res, _, err := r.loop(ctx, sess, cfg, actx, itemAt{})
	if err != nil {
		return "", err
	}
	return res.Output, nil
}

// itemAt places a loop in its stage: the For each item it answers (the
// zero value for a stage without one), and what to call once the server
// has read its first prompt.
type itemAt struct {
	title        string
	index, count int
	// read, when set, is called once the loop's first model call has its
	// prompt read: its first streamed piece, or its end (or the loop's,
	// when it ends before any call). It may be called more than once.
	read func()
}

// loop runs the agent on an assembled context and accounts for it. It
// returns the provenance of this one loop too (already merged into the
// run's), which a For each item keeps with its answer.
func (r *run) loop(ctx context.Context, sess Toolset, cfg agent.Config, actx *assemble.Context, at itemAt) (*agent.Result, *verify.Provenance, error) {
	item, index, count := at.title, at.index, at.count
	read := at.read
	if read == nil {
		read = func() {}
	}
	defer read()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: actx.System}, {Role: llm.RoleUser, Content: actx.User}}
	var tools agent.Tools
	if sess != nil {
		tools = sess
	}
	if actx.ReadTool {
		tools = r.readerTools(tools, actx)
	}
	prov := verify.NewProvenance(sess != nil)
	prov.AddGiven(actx.System)
	prov.AddGiven(actx.User)
	res, err := agent.Run(ctx, r.client, tools, msgs, cfg, func(ev agent.Event) {
		out := report.Event{Stage: r.st.Name, Item: item, Index: index, Count: count}
		switch ev.Kind {
		case "model":
			read()
			out.Kind, out.Model = report.EventModel, ev.Model
		case "tool":
			out.Kind, out.Tool = report.EventTool, ev.Tool
			out.Message = toolMessage(ev.Tool)
			r.noteTool(prov, at, ev.Tool)
		case "delta":
			if ev.Delta != "" || ev.Thinking != "" {
				read()
			}
			out.Kind, out.Delta = report.EventDelta, ev.Delta
		default:
			return
		}
		r.e.emit(out)
	})
	r.mu.Lock()
	r.prov.Merge(prov)
	r.mu.Unlock()
	if res != nil {
		r.account(res)
	}
	if err != nil {
		return nil, nil, err
	}
	if res.Incomplete {
		return nil, nil, &IncompleteError{Stage: r.st.Name, Item: item, Partial: res.Output}
	}
	if strings.TrimSpace(res.Output) == "" && (r.set == nil || r.set.Len() == 0) {
		return nil, nil, fault.ModelFailed(fmt.Sprintf("stage %s: the model returned no text (stopped: %s)", label(r.st.Name, item), res.StopReason),
			"run the stage again; if the model keeps answering nothing, ask for the output more plainly in the Process, or use another model").In(r.st.Name)
	}
	return res, prov, nil
}

// noteTool keeps what a tool call tells about the run: the URLs a call
// that worked returned or read, and the error of one that failed.
func (r *run) noteTool(prov *verify.Provenance, at itemAt, t *report.ToolEvent) {
	item := at.title
	if t == nil {
		return
	}
	if t.IsError {
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.res.ToolFailures) < state.MaxToolFailures {
			r.res.ToolFailures = append(r.res.ToolFailures, state.ToolFailure{Tool: t.Name, Item: item, Error: t.Err})
		}
		return
	}
	if args, err := json.Marshal(t.Args); err == nil {
		prov.AddTool(string(args))
	}
	prov.AddTool(t.Result)
	r.keepResult(at, t)
}

// toolMessage is a tool call in one line, for progress: what failed and why.
func toolMessage(t *report.ToolEvent) string {
	if t == nil {
		return ""
	}
	if t.IsError {
		return fmt.Sprintf("tool %s failed: %s", t.Name, t.Err)
	}
	return fmt.Sprintf("tool %s: %d bytes", t.Name, t.ResultSize)
}

func (r *run) account(res *agent.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.ModelCalls += res.ModelCalls
	r.res.ToolCalls += res.ToolCalls
	r.res.ToolErrors += res.ToolErrors
	r.res.Prompt += res.PromptTokens
	r.res.Output += res.OutputTokens
	if r.res.StopReason == "" || res.StopReason != "done" {
		r.res.StopReason = res.StopReason
	}
}

// IncompleteError says the answer did not finish within the output limit
// (the model stopped for length, or the server sent past max_output and
// was cut off): it is not accepted as a finished output.
type IncompleteError struct {
	Stage, Item, Partial string
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("stage %s: the answer was cut off at the output limit (max_output); it was not saved as the output", label(e.Stage, e.Item))
}

// Fault says how to leave room for the whole answer.
func (e *IncompleteError) Fault() *fault.Error { return fault.Incomplete(e.Error(), e.Stage) }

func label(stage, item string) string {
	if item == "" {
		return stage
	}
	return stage + " (" + item + ")"
}

// invalidStage refuses a stage whose contract has errors, pointing at the
// first one; nil when it has none.
func invalidStage(rep *check.Report, sr *check.StageReport) error {
	st := sr.Stage
	var errs []string
	line := 0
	for _, f := range rep.FindingsFor(st.Contract) {
		if f.Severity != contract.Error {
			continue
		}
		if line == 0 && sr.Source != nil {
			if l, _, err := document.NewMapper(sr.Source).LineCol(f.Range.Start); err == nil {
				line = l
			}
		}
		errs = append(errs, f.Message)
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
	}
	return fault.ContractInvalid(st.Name, st.Contract, line, errs)
}

// warningsOf are the warnings check gives on a stage's contract, each at
// its line: what the run keeps with it for the gate to show.
func warningsOf(ws *workspace.Workspace, rep *check.Report, sr *check.StageReport) []state.Warning {
	var out []state.Warning
	var m *document.Mapper
	for _, f := range rep.FindingsFor(sr.Stage.Contract) {
		if f.Severity != contract.Warning {
			continue
		}
		w := state.Warning{File: ws.Rel(f.File), Code: f.Code, Message: f.Message}
		if sr.Source != nil && f.Range.Len() > 0 {
			if m == nil {
				m = document.NewMapper(sr.Source)
			}
			if l, _, err := m.LineCol(f.Range.Start); err == nil {
				w.Line = l
			}
		}
		out = append(out, w)
	}
	return out
}

// fail records a failed run so status shows it. A failed or cancelled
// re-run never changes what was approved: the outputs on disk are still the
// last good run's, so its record is put back (with the failure beside it)
// and its approval keeps matching. A cancelled run leaves no trace in the
// record at all (finished For each items stay saved for the next run).
func (r *run) fail(err error) {
	if errors.Is(err, context.Canceled) {
		r.res.Status = "cancelled"
		if r.c.Script != nil {
			// The "writing" record said a script was about to change the
			// outputs; with it interrupted, put back what was there.
			r.restore(state.RunFailed, fmt.Errorf("cancelled while the script ran"), false)
		}
		r.e.emit(report.Event{Kind: report.EventStageEnd, Stage: r.st.Name, Status: "cancelled", Err: "cancelled", Message: "cancelled",
			Duration: r.res.Duration, PromptTokens: r.res.Prompt, OutputTokens: r.res.Output})
		return
	}
	status := state.RunFailed
	var inc *IncompleteError
	if errors.As(err, &inc) {
		status = state.RunIncomplete
		if inc.Partial != "" {
			_ = r.e.keepIncomplete(r.st, inc)
		}
	}
	kept := r.restore(status, err, true)
	msg := status + ": " + err.Error()
	if kept {
		msg = fmt.Sprintf("%s: %s (the last good output and its approval are kept)", status, err.Error())
	}
	r.e.emit(report.Event{Kind: report.EventStageEnd, Stage: r.st.Name, Status: status, Err: err.Error(), Message: msg,
		Duration: r.res.Duration, PromptTokens: r.res.Prompt, OutputTokens: r.res.Output})
}

// restore records a run that did not finish. When the stage had a good
// run before and this one left its outputs alone, that run's record is
// written back, with this attempt as its LastFailure when note is set;
// kept reports so. Otherwise (a first run, or a script that failed while
// moving its outputs) the record says the run failed.
func (r *run) restore(status string, err error, note bool) (kept bool) {
	r.res.Status = status
	now := r.e.opts.Now()
	if prev := r.prev; prev != nil && prev.Status == state.RunDone && !r.touched {
		good := *prev
		good.LastFailure = nil
		if note {
			good.LastFailure = &state.Attempt{RunID: r.e.runID, Status: status, Error: err.Error(), Finished: now, Settings: r.configured.Hash()}
		}
		_ = state.WriteRecord(r.e.ws.Disk, r.st.Dir, &good)
		return true
	}
	rec := &state.Record{Stage: r.st.Name, RunID: r.e.runID, Started: now.Add(-r.res.Duration), Finished: now,
		Status: status, Error: err.Error(), Inputs: r.inputs, Reads: r.readHashes(),
		PromptTokens: r.res.Prompt, OutputTokens: r.res.Output, ModelCalls: r.res.ModelCalls, ToolCalls: r.res.ToolCalls, StopReason: r.res.StopReason,
		ToolErrors: r.res.ToolErrors, ToolFailures: r.res.ToolFailures}
	r.settle(rec)
	if prev := r.prev; prev != nil {
		// The outputs on disk are still the ones the previous record knew.
		rec.Outputs, rec.PrevOutputs = prev.Outputs, prev.PrevOutputs
	}
	_ = state.WriteRecord(r.e.ws.Disk, r.st.Dir, rec)
	return false
}
