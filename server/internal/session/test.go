package session

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/stagetest"
)

// TestFilter names the cases to run: stages ("01-scope"), cases
// ("01-scope/short-idea") or case files and folders (relative to Dir);
// none names every case. Include and Exclude are globs over STAGE/NAME.
type TestFilter struct {
	Cases            []string
	Dir              string
	Include, Exclude []string
}

// Cases lists the cases f names, in stage order, as rep (a check of
// the workspace, the editor's buffers laid over it or the disk) finds
// them. A name that matches no stage or case is an invalid request.
func (ts Tests) Cases(rep *check.Report, f TestFilter) ([]*report.TestCase, error) {
	s := ts.s
	ws := rep.Workspace
	if ws == nil {
		ws = s.ws
	}
	sel, err := stagetest.Select(ws, rep, stagetest.Filter{Args: f.Cases, Dir: f.Dir, Include: f.Include, Exclude: f.Exclude})
	if err != nil {
		return nil, fault.From(err)
	}
	return sel, nil
}

// Models are the models the editor offers a test profile for:
// config.toml's [test] models, else the model in force.
func (ts Tests) Models() []string {
	s := ts.s
	if m := s.ws.Config.Test.Models; len(m) > 0 {
		return m
	}
	if m := s.Model(); m != "" {
		return []string{m}
	}
	return []string{}
}

// TestRequest is a stage-test run as a person asks for it; what it
// leaves out, config.toml's [test] section decides, then the settings'
// model (the matrix's model and the rubric judge).
type TestRequest struct {
	TestFilter
	Models           []string
	Repeat, Parallel int
	Seed             int
	Judge            string
	Cache, Keep      bool
	// ClearCache empties the cache of model replies first.
	ClearCache bool
	// Baseline names a saved run (its id, a prefix, or "latest") to
	// compare with.
	Baseline string
	// Progress receives each job's start and end, one at a time.
	Progress func(report.TestEvent)
}

// TestPlan is a stage-test run made ready: the cases selected from the
// files on disk and the options in force.
type TestPlan struct {
	Cases []*report.TestCase
	// Models (empty: each stage's own), Repeat and Parallel are what the
	// run will do.
	Models           []string
	Repeat, Parallel int

	s    *Session
	opts stagetest.Options
	base *report.TestReport
}

// Plan selects the cases req names from the workspace on disk and
// configures the run. An untrusted workspace's cases are refused here
// (they run its commands and contact its servers); no case to run is a
// not-found fault; a baseline that names no saved run fails here, before
// any job.
func (ts Tests) Plan(req TestRequest) (*TestPlan, error) {
	s := ts.s
	if err := s.Trust().Require("run its test cases"); err != nil {
		return nil, err
	}
	if req.Repeat < 0 || req.Parallel < 0 {
		return nil, fault.InvalidRequest("the repeats and the jobs at once are counted from 1", "give a positive number")
	}
	sel, err := ts.Cases(s.Check(nil), req.TestFilter)
	if err != nil {
		return nil, err
	}
	if len(sel) == 0 {
		return nil, fault.NotFound("no test cases to run in "+s.ws.Root, "add a case as tests/NAME.md in a stage folder, or name fewer filters")
	}
	p := &TestPlan{Cases: sel, s: s}
	if req.Baseline != "" {
		if p.base, err = ts.Saved(req.Baseline); err != nil {
			return nil, err
		}
	}
	if req.ClearCache {
		if err := stagetest.ClearCache(s.ws.Disk); err != nil {
			return nil, fault.From(err)
		}
	}
	o := stagetest.Options{Models: req.Models, Repeat: req.Repeat, Parallel: req.Parallel, Seed: req.Seed, Judge: req.Judge,
		Cache: req.Cache, Keep: req.Keep, Progress: req.Progress}.WithConfig(s.ws.Config)
	if m := s.opts.Settings.Model; m != "" {
		if len(o.Models) == 0 {
			o.Models = []string{m}
		}
		if o.Judge == "" {
			o.Judge = m
		}
	}
	p.opts, p.Models, p.Repeat, p.Parallel = o, o.Models, o.Repeat, o.Parallel
	return p, nil
}

// TestRun is a finished stage-test run: its report, saved in
// history/tests/, and the comparison with the baseline when one was
// named.
type TestRun struct {
	*report.TestReport
	// Saved is the saved report's path; "" when it could not be saved,
	// and SaveErr says why (the report is whole either way).
	Saved   string
	SaveErr error
	// Baseline is the comparison with the baseline; nil without one.
	Baseline *report.TestComparison
}

// Run runs the plan's cases the way the session runs stages: one model
// client for every job (so a [[model.servers]] pool's slots are shared),
// the tool servers started inside each job's copy of the workspace, this
// binary's code checker and icm's own environment for child processes;
// then saves the report. A model server that does not answer fails it at
// once, before any copy is made. Errors are *fault.Error; a job's own
// failure is in the report.
func (p *TestPlan) Run(ctx context.Context) (*TestRun, error) {
	s := p.s
	if f := s.ws.ConfigFault(); f != nil {
		return nil, f
	}
	if err := s.Trust().Require("run its test cases"); err != nil {
		return nil, err
	}
	client, err := s.modelClient()
	if err != nil {
		return nil, err
	}
	if needsModel(p.Cases) {
		if err := llm.Ping(ctx, client); err != nil {
			return nil, fault.From(err)
		}
	}
	b := stagetest.Backend{
		Client:     client,
		Tools:      s.Tools().opener,
		Check:      s.CheckOptions(CheckFacts{}),
		CodeBlocks: s.codeBlocks(),
		Self:       s.opts.Self,
		ChildEnv:   s.inherited(),
		Trust:      s.carryTrust,
		Permit:     s.permitIn,
	}
	rep := stagetest.New(s.ws, b, p.opts).Run(ctx, p.Cases)
	run := &TestRun{TestReport: rep}
	if run.Saved, err = stagetest.Save(s.ws.Disk, rep); err != nil {
		run.SaveErr = fault.From(fmt.Errorf("unable to save the test report: %w", err))
	}
	if p.base != nil {
		run.Baseline = stagetest.Compare(p.base, rep)
	}
	return run, nil
}

// needsModel reports whether any selected case runs a model: a model
// stage, or a rubric line to judge.
func needsModel(sel []*report.TestCase) bool {
	for _, s := range sel {
		if len(s.Errors) > 0 {
			continue
		}
		if s.Contract.Script == nil {
			return true
		}
		for _, e := range s.Case.Expect {
			if e.Kind == "rubric" {
				return true
			}
		}
	}
	return false
}

// RunIDs lists the saved test runs, oldest first.
func (ts Tests) RunIDs() ([]string, error) {
	s := ts.s
	ids, err := stagetest.Runs(s.ws.Disk)
	if err != nil {
		return nil, fault.From(err)
	}
	return ids, nil
}

// Saved reads a saved test run by id (a prefix, or "latest").
func (ts Tests) Saved(id string) (*report.TestReport, error) {
	s := ts.s
	rep, err := stagetest.Load(s.ws.Disk, id)
	if err != nil {
		return nil, fault.From(err)
	}
	return rep, nil
}

// LastRunOf is the newest saved test run that ran the case; false
// when none did.
func (ts Tests) LastRunOf(caseID string) (*report.TestReport, bool) {
	s := ts.s
	ids, err := stagetest.Runs(s.ws.Disk)
	if err != nil {
		return nil, false
	}
	for i := len(ids) - 1; i >= 0; i-- {
		rep, err := stagetest.Load(s.ws.Disk, ids[i])
		if err != nil {
			continue
		}
		for _, row := range rep.Matrix {
			if row.Case == caseID {
				return rep, true
			}
		}
	}
	return nil, false
}

// LastPassing is the output of the newest saved run before runID ("" for
// any) in which the case passed on the model.
func (ts Tests) LastPassing(caseID, model, runID string) (id, output string, ok bool) {
	s := ts.s
	return stagetest.LastPassing(s.ws.Disk, caseID, model, runID)
}

// WriteJUnit writes the run as JUnit XML to path, for CI.
func (r *TestRun) WriteJUnit(path string) error {
	return stagetest.WriteJUnitFile(path, r.TestReport)
}
