package stagetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/critic"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/verify"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// job is one case run once with one model and seed.
type job struct {
	sel    *report.TestCase
	model  string // the override ("" for the configured model)
	label  string // the model as the matrix names it
	repeat int
	seed   int
}

// runJob runs one job in its own copy of the workspace and checks it.
// ready, when set, is called once the server has read the job's first
// prompt (its first streamed piece, or the call's end), and at the end.
func (r *Runner) runJob(ctx context.Context, j job, ready func()) *report.TestResult {
	var progress func(report.Event)
	if ready != nil {
		defer ready()
		progress = func(ev report.Event) {
			if ev.Kind == report.EventModel || (ev.Kind == report.EventDelta && ev.Delta != "") {
				ready()
			}
		}
	}
	start := r.opts.Now()
	res := &report.TestResult{Case: j.sel.Case.ID, Stage: j.sel.Stage.Name, Model: j.label, Repeat: j.repeat, Seed: j.seed, Checks: []report.TestCheck{}}
	defer func() { res.Duration = r.opts.Now().Sub(start) }()
	if errs := j.sel.Errors; len(errs) > 0 {
		res.Status, res.Error = report.TestError, "the case has errors: "+errs[0]
		res.Hint = "icm check lists them with their lines"
		return res
	}
	cp, top, inputs, err := isolate(r.ws, j.sel.Stage, j.sel.Contract, j.sel.Case)
	if err != nil {
		r.fail(res, err)
		return res
	}
	res.Inputs = inputs
	if r.opts.Keep {
		res.Copy = cp.Root
	} else {
		defer os.RemoveAll(top)
	}
	defer cp.Close() // before the folder goes: it holds the copy's Root open
	if r.backend.Trust != nil {
		undo, err := r.backend.Trust(cp.Root)
		if err != nil {
			r.fail(res, err)
			return res
		}
		defer undo()
	}
	client := r.backend.Client
	var cache *cachingClient
	if r.opts.Cache && client != nil {
		cache = &cachingClient{inner: client, store: r.cache, now: r.opts.Now}
		client = cache
		defer func() { res.Cache = cache.snapshot() }()
	}
	seed := j.seed
	var permit act.Permit
	if r.backend.Permit != nil {
		permit = r.backend.Permit(cp)
	}
	var tools workflow.ToolOpener
	if r.backend.Tools != nil {
		tools = r.backend.Tools(cp.Root)
	}
	eng, err := workflow.New(cp, workflow.Options{
		Client: client, Model: j.model, Stage: j.sel.Stage.Name, Force: true, Gate: workflow.GateExplicit,
		Tools: tools, Check: r.backend.Check, CodeBlocks: r.backend.CodeBlocks, Self: r.backend.Self,
		ChildEnv: r.childEnv(), Seed: &seed, Now: r.opts.Now, Permit: permit, Progress: progress,
		// The stage's outputs in the copy, committed or not, are what the
		// test runs it again over.
		Committed: state.RegenerateCommitted,
	})
	if err != nil {
		r.fail(res, err)
		return res
	}
	res.RunID = eng.RunID()
	sum, err := eng.Run(ctx)
	if tr, terr := workflow.Run(cp, eng.RunID()); terr == nil {
		res.PromptTokens, res.OutputTokens = tr.Prompt, tr.Output
		for _, s := range tr.Stages {
			res.ModelCalls += s.ModelCalls
		}
	}
	if err != nil {
		r.fail(res, err)
		return res
	}
	var sr *report.StageResult
	for _, x := range sum.Ran {
		if x.Stage == j.sel.Stage.Name {
			sr = x
		}
	}
	if sr == nil {
		r.fail(res, fault.Failed(fmt.Sprintf("stage %s did not run", j.sel.Stage.Name), "run the case again; the run's log says why the stage was not reached", nil))
		return res
	}
	cst, _ := cp.Stage(j.sel.Stage.Name)
	ev := &evaluation{src: r.ws, st: j.sel.Stage, cp: cp, cst: cst, con: j.sel.Contract, c: j.sel.Case, codeBlocks: r.backend.CodeBlocks, stageVerify: sr.Verify, permit: permit}
	ev.outs, ev.primary = outputsOf(cp, cst, j.sel.Contract)
	if rec, err := state.ReadRecord(cp.Disk, cst.Dir); err == nil && rec != nil {
		ev.provenance = verify.ProvenanceOf(rec.Sources)
	}
	res.Output = ev.primary.Rel
	res.Outputs = readOutputs(ev.outs)
	if client != nil {
		ev.judge = r.judgeFor(client, j, res)
	}
	res.Checks = append(ev.checks(ctx), stageChecks(sr.Verify, statesVerify(j.sel.Case))...)
	if ctx.Err() != nil {
		res.Status, res.Error = report.TestCancelled, "cancelled"
		return res
	}
	res.FirstFailure = firstFailure(res.Checks)
	res.Status = report.TestPassed
	if res.FirstFailure != "" {
		res.Status = report.TestFailed
	}
	return res
}

// childEnv is the environment icm's own child processes start from: the
// backend's, with the model server the jobs use. (The engine adds it from
// the client too, but a caching client hides which server is behind it.)
func (r *Runner) childEnv() map[string]string {
	env := map[string]string{}
	for k, v := range r.backend.ChildEnv {
		env[k] = v
	}
	if u := llm.OllamaURL(r.backend.Client); u != "" {
		env["OLLAMA_HOST"] = u
	}
	return env
}

// judgeFor is the rubric judge of a job: the judge model (the configured
// one unless Options.Judge names another) with the job's seed, counting
// its calls into the result.
func (r *Runner) judgeFor(client llm.Client, j job, res *report.TestResult) judge {
	model := r.opts.Judge
	if model == "" {
		model = r.ws.Config.Model.Name
	}
	seed := j.seed
	zero := 0.0
	return &critic.Critic{Client: client, Model: model, Stage: j.sel.Case.ID, Seed: &seed, Temperature: &zero,
		Observe: func(ev agent.Event) {
			if ev.Kind == agent.EventModel && ev.Model != nil {
				res.JudgeCalls++
				res.JudgeTokens += ev.Model.PromptTokens + ev.Model.OutputTokens
			}
		}}
}

// fail records why a job could not be judged.
func (r *Runner) fail(res *report.TestResult, err error) {
	res.Status, res.Error = report.TestError, err.Error()
	if errors.Is(err, context.Canceled) {
		res.Status = report.TestCancelled
	}
	res.Hint = fault.From(err).Hint
}

// outputsOf lists the stage's outputs in the copy and picks the first
// declared one with a concrete name as the one expectations read.
func outputsOf(cp *workspace.Workspace, st *workspace.Stage, con *contract.Contract) ([]verify.Output, verify.Output) {
	var outs []verify.Output
	for _, rel := range state.OutputPaths(cp, st, con) {
		outs = append(outs, verify.Output{Rel: rel, Abs: cp.Abs(rel)})
	}
	sort.Slice(outs, func(i, k int) bool { return outs[i].Rel < outs[k].Rel })
	var primary verify.Output
	if o, ok := con.ModelOutput(); ok {
		rel := path.Join(st.Rel, o.Path)
		primary = verify.Output{Rel: rel, Abs: cp.Abs(rel)}
	} else if len(outs) > 0 {
		primary = outs[0]
	}
	return outs, primary
}

func readOutputs(outs []verify.Output) map[string]string {
	m := map[string]string{}
	for _, o := range outs {
		data, err := workspace.ReadFileAt(o.Abs, 0)
		if err != nil {
			continue
		}
		if len(data) > MaxOutputText {
			data = append(data[:MaxOutputText:MaxOutputText], []byte("\n[... cut: the output is longer]")...)
		}
		m[o.Rel] = string(data)
	}
	return m
}

// statesVerify reports whether a case has a `verify` line.
func statesVerify(c *testcase.Case) bool {
	for _, e := range c.Expect {
		if e.Kind == testcase.KindVerify {
			return true
		}
	}
	return false
}
