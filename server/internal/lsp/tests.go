package lsp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
)

// Stage-test commands and notifications of docs/lsp-protocol.md.
const (
	cmdTestList   = "icm.testList"
	cmdTestRun    = "icm.testRun"
	cmdTestCancel = "icm.testCancel"

	notifyTestEvent    = "icm/testEvent"
	notifyTestFinished = "icm/testFinished"
)

// testArgs are the fields of commandArgs the test commands read.
type testArgs struct {
	Cases  []string `json:"cases"`
	Models []string `json:"models"`
	Repeat int      `json:"repeat"`
	Token  string   `json:"token"`
	Keep   bool     `json:"keep"`
}

// cancelAll stops every test run (shutdown); wait waits for them to end.
func (t *testRuns) cancelAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.active {
		c()
	}
}

func (t *testRuns) wait() { t.wg.Wait() }

// caseInfo is one case as icm.testList lists it.
type caseInfo struct {
	ID     string   `json:"id"`
	Stage  string   `json:"stage"`
	Name   string   `json:"name"`
	Title  string   `json:"title"`
	File   string   `json:"file"`
	Line   int      `json:"line"`
	Expect []string `json:"expect"`
	Errors []string `json:"errors,omitempty"`
}

// workspaceCases is a workspace's cases and the models its profiles offer.
type workspaceCases struct {
	Workspace string     `json:"workspace"`
	Name      string     `json:"name"`
	Models    []string   `json:"models"`
	Cases     []caseInfo `json:"cases"`
}

// testList runs icm.testList: every case of the known workspaces (or the
// one named), from the buffers as they are now.
func testList(ctx context.Context, e *env, args commandArgs) (any, error) {
	list := e.set.All()
	if args.Workspace != "" {
		st, err := e.workspace(args)
		if err != nil {
			return nil, err
		}
		list = []*snapshot.Workspace{st}
	}
	out := []workspaceCases{}
	for _, st := range list {
		if wc, ok := casesOf(ctx, st); ok {
			out = append(out, wc)
		}
	}
	return map[string]any{"workspaces": out}, nil
}

// casesOf lists the test cases of the workspace as its latest analysis
// found them; false when it cannot be read (its status says why).
func casesOf(ctx context.Context, st *snapshot.Workspace) (workspaceCases, bool) {
	cs, err := st.Cases(ctx)
	if err != nil {
		return workspaceCases{}, false
	}
	wc := workspaceCases{Workspace: st.Root(), Name: filepath.Base(st.Root()), Models: cs.Models, Cases: []caseInfo{}}
	for _, c := range cs.Cases {
		wc.Cases = append(wc.Cases, caseInfoOf(c))
	}
	return wc, true
}

func caseInfoOf(sc snapshot.Case) caseInfo {
	c := sc.Case
	ci := caseInfo{ID: c.ID, Stage: c.Stage, Name: c.Name, Title: c.Title, File: c.File, Line: sc.Line, Expect: []string{}, Errors: sc.Errors}
	for _, e := range c.Expect {
		ci.Expect = append(ci.Expect, e.Label())
	}
	return ci
}

// testRuns are the stage-test runs going on, by token.
type testRuns struct {
	mu     sync.Mutex
	active map[string]context.CancelFunc
	wg     sync.WaitGroup
}

func (t *testRuns) add(token string, cancel context.CancelFunc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.active == nil {
		t.active = map[string]context.CancelFunc{}
	}
	if _, busy := t.active[token]; busy {
		return false
	}
	t.active[token] = cancel
	t.wg.Add(1)
	return true
}

func (t *testRuns) done(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.active, token)
	t.wg.Done()
}

func (t *testRuns) cancel(token string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.active[token]
	if ok {
		c()
	}
	return ok
}

// testEvent is the params of icm/testEvent.
type testEvent struct {
	Token  string     `json:"token"`
	Kind   string     `json:"kind"`
	Index  int        `json:"index"`
	Total  int        `json:"total"`
	Case   string     `json:"case"`
	Model  string     `json:"model"`
	Repeat int        `json:"repeat"`
	Result *jobResult `json:"result,omitempty"`
}

// testFinished is the params of icm/testFinished.
type testFinished struct {
	Token     string      `json:"token"`
	Workspace string      `json:"workspace"`
	RunID     string      `json:"run_id,omitempty"`
	Passed    bool        `json:"passed"`
	Cancelled bool        `json:"cancelled"`
	Saved     string      `json:"saved,omitempty"`
	Results   []jobResult `json:"results"`
	Message   string      `json:"message"`
	Error     *errorData  `json:"error,omitempty"`
}

// jobResult is a job as the editor shows it: the result, the text of the
// output the expectations read, and for a failure the output of the last
// run in which the case passed on the model.
type jobResult struct {
	*report.TestResult
	// Outputs hides the result's map of every output's text: the editor
	// gets the one the expectations read, as OutputText.
	Outputs    *struct{} `json:"outputs,omitempty"`
	OutputText string    `json:"output_text,omitempty"`
	Previous   *previous `json:"previous,omitempty"`
}

type previous struct {
	RunID string `json:"run_id"`
	Text  string `json:"text"`
}

func jobOf(sess *session.Session, runID string, r *report.TestResult) jobResult {
	j := jobResult{TestResult: r, OutputText: r.Outputs[r.Output]}
	if r.Status == report.TestFailed {
		if id, text, ok := sess.Tests().LastPassing(r.Case, r.Model, runID); ok {
			j.Previous = &previous{RunID: id, Text: text}
		}
	}
	return j
}

// testCancel runs icm.testCancel: it stops the test run of a token.
func testCancel(_ context.Context, e *env, args commandArgs) (any, error) {
	return map[string]bool{"cancelled": e.tests.cancel(args.Token)}, nil
}

// testRun runs icm.testRun: it starts a run of the cases named (every case of the stage named,
// or of the workspace) on a goroutine and answers at once with its token;
// each job's start and end follow as icm/testEvent, the end of the run as
// icm/testFinished. The cases run from the files on disk, each in its own
// copy of the workspace, through a session of their own.
func testRun(_ context.Context, e *env, st *snapshot.Workspace, args commandArgs) (any, error) {
	op, err := st.OpenSession()
	if err != nil {
		return nil, err
	}
	sess := op.Session()
	req := session.TestRequest{TestFilter: session.TestFilter{Cases: args.Cases, Dir: st.Root()}, Models: args.Models, Repeat: args.Repeat, Keep: args.Keep}
	if len(req.Cases) == 0 && args.Stage != "" {
		req.Cases = []string{args.Stage}
	}
	token := args.Token
	if token == "" {
		token = newToken()
	}
	req.Progress = func(ev report.TestEvent) {
		out := testEvent{Token: token, Kind: ev.Kind, Index: ev.Index, Total: ev.Total, Case: ev.Case, Model: ev.Model, Repeat: ev.Repeat}
		if ev.Result != nil {
			j := jobOf(sess, "", ev.Result)
			out.Result = &j
		}
		if err := e.client.notify(notifyTestEvent, out); err != nil {
			e.log.Info("unable to send a test event", "err", err)
		}
	}
	plan, err := sess.Tests().Plan(req)
	if err != nil {
		op.Release()
		return nil, err
	}
	ctx, cancel := context.WithCancel(e.ctx)
	if !e.tests.add(token, cancel) {
		cancel()
		op.Release()
		return nil, fault.Locked(fmt.Sprintf("a test run with token %q is already going", token))
	}
	go func() {
		defer e.tests.done(token)
		defer cancel()
		defer op.Release()
		defer e.bg.recoverLog("test run " + token)
		fin := testFinished{Token: token, Workspace: st.Root(), Results: []jobResult{}}
		run, err := plan.Run(ctx)
		switch {
		case err != nil:
			f := fault.From(err)
			fin.Message, fin.Error, fin.Cancelled = f.Error(), dataOf(f), errors.Is(err, context.Canceled)
		default:
			fin.RunID, fin.Passed, fin.Cancelled, fin.Saved = run.RunID, run.Passed, !run.Complete, run.Saved
			if run.SaveErr != nil {
				e.log.Info("unable to save the test report", "err", run.SaveErr)
			}
			for _, r := range run.Results {
				fin.Results = append(fin.Results, jobOf(sess, run.RunID, r))
			}
			fin.Message = fmt.Sprintf("%d passed, %d failed, %d could not run", run.Counts[report.TestPassed], run.Counts[report.TestFailed], run.Counts[report.TestError])
		}
		if err := e.client.notify(notifyTestFinished, fin); err != nil {
			e.log.Info("unable to send testFinished", "err", err)
		}
	}()
	return map[string]any{"started": true, "token": token, "cases": len(plan.Cases)}, nil
}

func newToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "icm-test-" + hex.EncodeToString(b[:])
}
