package stagetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func TestCasesPassAndChecksAreReported(t *testing.T) {
	_, client := scripted(t)
	ws := openSmall(t)
	rep := runCases(t, ws, client, Options{})
	if !rep.Passed || len(rep.Results) != 2 {
		t.Fatalf("passed %v, %d results: %+v", rep.Passed, len(rep.Results), rep.Results)
	}
	goRes := result(t, rep, "01-idea/go", "alpha", 1)
	var kinds []string
	for _, c := range goRes.Checks {
		kinds = append(kinds, c.Source+":"+c.Kind)
	}
	if strings.Join(kinds, " ") != "case:contains case:not-contains case:rubric stage:non-empty" {
		t.Errorf("checks %v", kinds)
	}
	rub := goRes.Checks[2]
	if rub.Score == nil || *rub.Score != 8 || rub.Threshold != 7 || rub.Line != 13 || !strings.Contains(rub.Reason, "verb") {
		t.Errorf("rubric check %+v", rub)
	}
	if goRes.Output != "pipeline/01-idea/output/objectives.md" || !strings.Contains(goRes.Outputs[goRes.Output], "Write Go programs") {
		t.Errorf("output %q: %q", goRes.Output, goRes.Outputs[goRes.Output])
	}
	if goRes.Inputs["pipeline/01-idea/input.md"] != FromCase || goRes.PromptTokens == 0 || goRes.ModelCalls != 1 || goRes.JudgeCalls != 1 {
		t.Errorf("inputs %v, tokens %d, calls %d, judge calls %d", goRes.Inputs, goRes.PromptTokens, goRes.ModelCalls, goRes.JudgeCalls)
	}
	// The real input.md never reached the model: the stand-in did.
	if row, ok := rep.Row("01-idea/python", "alpha"); !ok || row.Rate() != "1/1" {
		t.Errorf("matrix %+v", rep.Matrix)
	}
}

// A test run leaves the workspace byte-identical, approvals, records,
// outputs and history included; only its results file is added.
func TestIsolationLeavesTheWorkspaceByteIdentical(t *testing.T) {
	srv, client := scripted(t)
	srv.On(ollamatest.LastUserContains("Rust")).Reply(ollamatest.Text("1. Write Rust.\n"))
	ws := openSmall(t)
	// Give the workspace a real run, an approval and history first.
	eng, err := workflow.New(ws, workflow.Options{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.Approve(context.Background(), ws, "01-idea", workflow.ApproveOptions{}); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, ws.Root, nil)
	if _, ok := before["pipeline/01-idea/.icm/approval.json"]; !ok {
		t.Fatalf("the setup left no approval: %v", before)
	}
	rep := runCases(t, ws, client, Options{Repeat: 2, Parallel: 2})
	if !rep.Passed {
		t.Fatalf("the run failed: %+v", rep.Matrix)
	}
	for _, r := range rep.Results {
		if r.Outputs[r.Output] == "" {
			t.Fatalf("%s wrote nothing in its copy", r.Case)
		}
	}
	if _, err := Save(ws.Disk, rep); err != nil {
		t.Fatal(err)
	}
	after := hashTree(t, ws.Root, nil)
	diff := diffTrees(before, after)
	want := []string{"added history/tests", "added history/tests/" + rep.RunID + ".json"}
	if strings.Join(diff, "\n") != strings.Join(want, "\n") {
		t.Errorf("the workspace changed:\n%s\nwant only:\n%s", strings.Join(diff, "\n"), strings.Join(want, "\n"))
	}
	data, _ := os.ReadFile(filepath.Join(ws.Root, "pipeline/01-idea/output/objectives.md"))
	if string(data) != "1. Write Rust.\n" {
		t.Errorf("the real output is now %q", data)
	}
	// The copies are gone.
	for _, r := range rep.Results {
		if r.Copy != "" {
			t.Errorf("a copy was kept: %s", r.Copy)
		}
	}
	st, _ := ws.Stage("01-idea")
	if s := stageStatus(t, ws, st.Name); s != state.Approved {
		t.Errorf("the stage is %s after the test run", s)
	}
}

// Each repeat has its own seed, Seed+i-1, and the same seeds come back on
// the next run: the samples are fixed, not random.
func TestRepeatsUseFixedSeeds(t *testing.T) {
	srv, client := scripted(t)
	ws := openSmall(t)
	rep := runCases(t, ws, client, Options{Repeat: 3, Seed: 40, Parallel: 3}, "01-idea/go")
	if got := seedsOf(srv, "Learn Go"); len(got) != 3 || got[0] != 40 || got[1] != 41 || got[2] != 42 {
		t.Errorf("seeds %v, want 40 41 42", got)
	}
	for i := 1; i <= 3; i++ {
		if r := result(t, rep, "01-idea/go", "alpha", i); r.Seed != 39+i {
			t.Errorf("repeat %d ran with seed %d", i, r.Seed)
		}
	}
	row, _ := rep.Row("01-idea/go", "alpha")
	if row.Runs != 3 || row.Passed != 3 || row.MedianTokens == 0 || row.MedianDuration <= 0 {
		t.Errorf("row %+v", row)
	}
	runCases(t, ws, client, Options{Repeat: 3, Seed: 40}, "01-idea/go")
	if got := seedsOf(srv, "Learn Go"); len(got) != 6 || got[0] != 40 || got[1] != 40 || got[4] != 42 || got[5] != 42 {
		t.Errorf("seeds over two runs %v, want each of 40, 41, 42 twice", got)
	}
	// The judge gets the repeat's seed too.
	judged := 0
	for _, r := range srv.ChatRequests() {
		if len(r.Format) > 0 {
			if s, ok := r.IntOption("seed"); !ok || s < 40 || s > 42 {
				t.Errorf("a judging call had seed %d (%v)", s, ok)
			}
			judged++
		}
	}
	if judged != 6 {
		t.Errorf("%d judging calls, want 6", judged)
	}
}

// Two models on the scripted server, one scripted to fail a case: the
// matrix shows k of N per case and model, and the first failing
// expectation.
func TestMatrixOverTwoModels(t *testing.T) {
	srv, client := scripted(t)
	ws := openSmall(t)
	rep := runCases(t, ws, client, Options{Models: []string{"alpha", "beta"}, Repeat: 2, Parallel: 4})
	if rep.Passed || len(rep.Results) != 8 || strings.Join(rep.Models, ",") != "alpha,beta" {
		t.Fatalf("passed %v, %d results, models %v", rep.Passed, len(rep.Results), rep.Models)
	}
	cells := map[string]string{}
	for _, r := range rep.Matrix {
		cells[r.Case+" "+r.Model] = r.Rate()
	}
	want := map[string]string{"01-idea/go alpha": "2/2", "01-idea/go beta": "0/2", "01-idea/python alpha": "2/2", "01-idea/python beta": "2/2"}
	for k, v := range want {
		if cells[k] != v {
			t.Errorf("%s: %s, want %s", k, cells[k], v)
		}
	}
	row, _ := rep.Row("01-idea/go", "beta")
	if row.FirstFailure != `contains "Go": pipeline/01-idea/output/objectives.md does not contain "Go"` {
		t.Errorf("first failure %q", row.FirstFailure)
	}
	if rep.Counts[report.TestFailed] != 2 || rep.Counts[report.TestPassed] != 6 {
		t.Errorf("counts %v", rep.Counts)
	}
	// The model override reached the server.
	for _, r := range srv.ChatRequests() {
		if strings.Contains(r.LastUser(), "Learn Python") && r.Model != "alpha" && r.Model != "beta" {
			t.Errorf("a call for model %q", r.Model)
		}
	}
}

// --baseline: a case that passed before and fails now is reported worse.
// Here the model's answer changes between the runs (as a new model
// version's would), the case and the model name stay the same.
func TestBaselineShowsARegression(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "gamma", ContextLength: 8192}}})
	answer := "1. Write Go programs.\n"
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"score": 8, "reason": "Verbs first."}))
	srv.On(ollamatest.LastUserContains("Learn Go")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn { return ollamatest.Text(answer) })
	srv.On(ollamatest.LastUserContains("Learn Python")).Reply(ollamatest.Text("1. Write Python scripts.\n"))
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	ws := openSmall(t)
	base := runCases(t, ws, client, Options{Models: []string{"gamma"}, Judge: "gamma", Repeat: 2})
	if !base.Passed {
		t.Fatalf("the baseline failed: %+v", base.Matrix)
	}
	if _, err := Save(ws.Disk, base); err != nil {
		t.Fatal(err)
	}
	answer = "1. Write programs.\n" // the Go case's "contains \"Go\"" fails now
	cur := runCases(t, ws, client, Options{Models: []string{"gamma"}, Judge: "gamma", Repeat: 2})
	loaded, err := Load(ws.Disk, Latest)
	if err != nil || loaded.RunID != base.RunID {
		t.Fatalf("load latest: %v %v", loaded, err)
	}
	cmp := Compare(loaded, cur)
	if cmp.Worse != 1 || cmp.Better != 0 || cmp.Baseline != base.RunID {
		t.Fatalf("%+v", cmp)
	}
	var worse, same report.TestChange
	for _, c := range cmp.Changes {
		switch c.Kind {
		case report.ChangeWorse:
			worse = c
		case report.ChangeSame:
			same = c
		}
	}
	if worse.Case != "01-idea/go" || worse.Before != "2/2" || worse.After != "0/2" || !strings.Contains(worse.FirstFailure, `contains "Go"`) || worse.CaseChanged {
		t.Errorf("worse %+v", worse)
	}
	if same.Case != "01-idea/python" {
		t.Errorf("the python case (it says nothing about Go) should be the same: %+v", cmp.Changes)
	}
	if s := worse.String(); !strings.HasPrefix(s, "worse 01-idea/go × gamma: 2/2 → 0/2; first failure: contains") {
		t.Errorf("line %q", s)
	}
	if _, err := Load(ws.Disk, "2099"); err == nil || !strings.Contains(err.Error(), "no saved test run") {
		t.Errorf("an unknown run: %v", err)
	}
}

// --cache: the second run of unchanged cases makes no model call at all,
// and says which keys it replayed.
func TestCacheReplaysIdenticalRequests(t *testing.T) {
	srv, client := scripted(t)
	ws := openSmall(t)
	first := runCases(t, ws, client, Options{Cache: true, Repeat: 2})
	calls := len(srv.ChatRequests())
	if !first.Passed || calls != 6 { // 2 cases × 2 repeats, plus the Go case's 2 rubric calls
		t.Fatalf("first run: passed %v, %d calls", first.Passed, calls)
	}
	for _, r := range first.Results {
		if r.Cache == nil || r.Cache.Hits != 0 || r.Cache.Misses == 0 {
			t.Errorf("first run %s #%d cache %+v", r.Case, r.Repeat, r.Cache)
		}
	}
	second := runCases(t, ws, client, Options{Cache: true, Repeat: 2})
	if n := len(srv.ChatRequests()) - calls; n != 0 {
		t.Errorf("the second run made %d model calls", n)
	}
	if !second.Passed {
		t.Errorf("replayed run failed: %+v", second.Matrix)
	}
	for i, r := range second.Results {
		prev := first.Results[i]
		if r.Cache == nil || r.Cache.Misses != 0 || r.Cache.Hits != prev.Cache.Misses || len(r.Cache.Keys) != len(prev.Cache.Keys) {
			t.Fatalf("second run %s #%d cache %+v (first %+v)", r.Case, r.Repeat, r.Cache, prev.Cache)
		}
		for k, key := range r.Cache.Keys {
			if !key.Hit || key.Key != prev.Cache.Keys[k].Key || len(key.Key) != 64 {
				t.Errorf("key %d: %+v, first run %+v", k, key, prev.Cache.Keys[k])
			}
		}
		if r.Outputs[r.Output] != prev.Outputs[prev.Output] {
			t.Errorf("replayed output differs")
		}
	}
	if row, _ := second.Row("01-idea/go", "alpha"); row.CacheHits != 4 {
		t.Errorf("row cache hits %d", row.CacheHits)
	}
	// A different seed is a different request.
	runCases(t, ws, client, Options{Cache: true, Seed: 9}, "01-idea/python")
	if n := len(srv.ChatRequests()) - calls; n != 1 {
		t.Errorf("a new seed made %d calls, want 1", n)
	}
}

func stageStatus(t *testing.T, ws *workspace.Workspace, name string) state.Status {
	t.Helper()
	st, _ := ws.Stage(name)
	src, _ := os.ReadFile(st.Contract)
	c := contract.Parse(st.Contract, src)
	s, err := state.Derive(ws, st, c, state.ResolveSettings(ws.Config.Model, c.Model, ""))
	if err != nil {
		t.Fatal(err)
	}
	return s.Status
}

// A case may expect the stage's own Verify checks to fail (a stage fed bad
// material on purpose): `verify fails` decides, the stage's checks are
// shown but do not fail the job; without the line they do.
func TestVerifyOutcome(t *testing.T) {
	_, client := scripted(t)
	ws := openSmall(t)
	st, _ := ws.Stage("01-idea")
	src, _ := os.ReadFile(st.Contract)
	os.WriteFile(st.Contract, []byte(strings.Replace(string(src), "- non-empty", "- non-empty\n- max-words 5", 1)), 0o644)
	caseFile := filepath.Join(st.Dir, "tests", "go.md")
	orig, _ := os.ReadFile(caseFile)
	rep := runCases(t, ws, client, Options{}, "01-idea/go")
	r := rep.Results[0]
	if r.Status != report.TestFailed || !strings.HasPrefix(r.FirstFailure, "verify max-words 5: pipeline/01-idea/output/objectives.md: ") {
		t.Errorf("without a verify line the stage's failed check fails the case: %s %q", r.Status, r.FirstFailure)
	}
	os.WriteFile(caseFile, append(orig, []byte("- verify fails\n")...), 0o644)
	rep = runCases(t, ws, client, Options{}, "01-idea/go")
	r = rep.Results[0]
	last := r.Checks[len(r.Checks)-1]
	if r.Status != report.TestPassed || !last.Info || last.OK {
		t.Errorf("verify fails: %s %q, last check %+v", r.Status, r.FirstFailure, last)
	}
	os.WriteFile(st.Contract, src, 0o644)
	rep = runCases(t, ws, client, Options{}, "01-idea/go")
	if r := rep.Results[0]; r.Status != report.TestFailed || !strings.Contains(r.FirstFailure, "every Verify check of the stage passed") {
		t.Errorf("verify fails on a passing stage: %s %q", r.Status, r.FirstFailure)
	}
}

// A failure can be compared with the output of the last run in which the
// same case passed on the same model.
func TestLastPassingOutput(t *testing.T) {
	_, client := scripted(t)
	ws := openSmall(t)
	good := runCases(t, ws, client, Options{Models: []string{"alpha"}}, "01-idea/go")
	if _, err := Save(ws.Disk, good); err != nil {
		t.Fatal(err)
	}
	bad := runCases(t, ws, client, Options{Models: []string{"beta"}}, "01-idea/go")
	if _, err := Save(ws.Disk, bad); err != nil {
		t.Fatal(err)
	}
	id, out, ok := LastPassing(ws.Disk, "01-idea/go", "alpha", "")
	if !ok || id != good.RunID || !strings.Contains(out, "Write Go programs") {
		t.Errorf("last passing: %q %q %v", id, out, ok)
	}
	if _, _, ok := LastPassing(ws.Disk, "01-idea/go", "beta", ""); ok {
		t.Error("beta never passed the case")
	}
	if _, _, ok := LastPassing(ws.Disk, "01-idea/go", "alpha", good.RunID); ok {
		t.Error("found a passing run before the first one")
	}
}

// Each job's copy is closed before its folder goes: runs do not pile up
// open files (a language server runs tests for hours).
func TestJobsLeaveNoOpenFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	_, client := scripted(t)
	ws := openSmall(t)
	fds := func() int {
		entries, _ := os.ReadDir("/proc/self/fd")
		return len(entries)
	}
	runCases(t, ws, client, Options{}, "01-idea/python") // warm: connections, the clients' pools
	// Without collections, a Root left open is not closed behind our back.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := fds()
	rep := runCases(t, ws, client, Options{Repeat: 12, Parallel: 1}, "01-idea/python")
	if !rep.Passed {
		t.Fatalf("%+v", rep.Matrix)
	}
	if after := fds(); after-before > 3 {
		t.Errorf("%d files open before 12 jobs, %d after", before, after)
	}
}
