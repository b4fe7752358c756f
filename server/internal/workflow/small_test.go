package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// small is a three-stage workspace without tools: a plain stage, a For
// each stage over the first one's output, and a script stage.
const small = `
-- CLAUDE.md --
# Identity
You help.
-- config.toml --
[model]
name = "qwen3.5:9b"

[workflow]
parallel = 1
-- pipeline/01-plan/CONTEXT.md --
# Stage: 01-plan

## Inputs
- Layer 4 (working): idea.md

## Process
PLAN the parts.

## Outputs
- plan.md -> output/

## Verify
- headings 1..9
-- pipeline/01-plan/idea.md --
An idea.
-- pipeline/02-write/CONTEXT.md --
# Stage: 02-write

## For each
part in ../01-plan/output/plan.md

## Process
WRITE the part shown below.

## Outputs
- parts.md -> output/
-- pipeline/03-count/CONTEXT.md --
# Stage: 03-count

## Inputs
- Layer 4 (working): ../02-write/output/parts.md

## Script
wc -l < ../02-write/output/parts.md > "$ICM_OUTPUT/count.txt"

## Outputs
- count.txt -> output/

## Gate
auto
`

func newSmall(t *testing.T, cfg ollamatest.Config) *harness {
	t.Helper()
	return harnessIn(t, wstest.Write(t, small), cfg)
}

func plan(n int) string {
	var b strings.Builder
	b.WriteString("# Plan\n")
	for i := 1; i <= n; i++ {
		b.WriteString("\n## Part " + string(rune('A'+i-1)) + "\n- point\n")
	}
	return b.String()
}

// writeParts writes a one-stage workspace whose stage writes each part
// of a plan of n parts (scriptSmall's answers fit it), with config.toml
// as given.
func writeParts(t *testing.T, config string, n int) string {
	t.Helper()
	return wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
`+config+`
-- plan.md --
`+plan(n)+`
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## For each
part in ../../plan.md
## Process
WRITE the part shown below.
## Outputs
- parts.md -> output/
`)
}

func scriptSmall(srv *ollamatest.Server, parts int) {
	srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Text(plan(parts)))
	srv.On(ollamatest.UserContains("WRITE the part")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		u := r.LastUser()
		i := strings.Index(u, "\n## Part ")
		return ollamatest.Text("## Part " + u[i+9:i+10] + "\n\nText of the part.")
	})
}

func TestStaleAfterUpstreamEditAndGateAuto(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 3)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	sum := h.mustRun(workflow.Options{})
	if sum.Ran[0].Items != 3 {
		t.Fatalf("02-write items = %d", sum.Ran[0].Items)
	}
	h.approve("02-write")
	// The script stage is auto-approved because its (no) checks pass.
	sum = h.mustRun(workflow.Options{})
	if !sum.Ran[0].AutoApproved || sum.Next.Action != state.ActionDone {
		t.Fatalf("03-count: %+v next %+v", sum.Ran[0], sum.Next)
	}
	if got := strings.TrimSpace(h.read("pipeline/03-count/output/count.txt")); got == "" {
		t.Error("the script wrote nothing")
	}

	// A person trims the plan: it needs review, and the stage reading it is stale.
	os.WriteFile(filepath.Join(h.dir, "pipeline/01-plan/output/plan.md"), []byte(plan(2)), 0o644)
	st := h.status()
	if st["01-plan"] != state.Awaiting || st["02-write"] != state.Stale || st["03-count"] != state.Approved {
		t.Fatalf("after editing the plan: %v", st)
	}
	// Running now refuses to overwrite the unapproved edit... it stops at
	// 01-plan's gate instead, running nothing.
	if sum := h.mustRun(workflow.Options{}); len(sum.Ran) != 0 {
		t.Fatalf("ran %v at the gate", sum.Ran)
	}
	h.approve("01-plan")
	sum = h.mustRun(workflow.Options{})
	if sum.Ran[0].Stage != "02-write" || sum.Ran[0].Items != 2 {
		t.Fatalf("rerun after the edit: %+v", sum.Ran[0])
	}
	if st := h.status(); st["03-count"] != state.Stale {
		t.Errorf("03-count after 02-write changed: %s", st["03-count"])
	}
}

func TestEditedOutputIsNotOverwritten(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	h.mustRun(workflow.Options{})
	p := filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")
	os.WriteFile(p, []byte(plan(1)+"\nmy edit\n"), 0o644)
	_, err := h.run(workflow.Options{Stage: "01-plan"})
	var ee *workflow.EditedError
	if !errors.As(err, &ee) {
		t.Fatalf("rerunning over an unapproved edit: %v", err)
	}
	if got := h.read("pipeline/01-plan/output/plan.md"); !strings.Contains(got, "my edit") {
		t.Fatal("the edit was overwritten")
	}
	h.mustRun(workflow.Options{Stage: "01-plan", Force: true})
	kept, _ := filepath.Glob(filepath.Join(h.dir, "history/versions/01-plan/*-edited/plan.md"))
	if len(kept) != 1 {
		t.Fatalf("edited version not kept: %v", kept)
	}
	if data, _ := os.ReadFile(kept[0]); !strings.Contains(string(data), "my edit") {
		t.Error("the kept version is not the edit")
	}
}

func TestVerifyBlocksApproval(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Text("no headings at all"))
	sum := h.mustRun(workflow.Options{})
	if v := sum.Ran[0].Verify; len(v) != 1 || v[0].OK {
		t.Fatalf("verify = %+v", v)
	}
	_, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())})
	if !errors.Is(err, workflow.ErrVerifyFailed) {
		t.Fatalf("approve with failing checks: %v", err)
	}
	// Fixing the output by hand makes it approvable.
	os.WriteFile(filepath.Join(h.dir, "pipeline/01-plan/output/plan.md"), []byte(plan(1)), 0o644)
	if _, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws())}); err != nil {
		t.Fatalf("approve after the fix: %v", err)
	}
}

func TestGateRerunApprovesByRunningAgain(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	h.mustRun(workflow.Options{Gate: workflow.GateRerun})
	sum := h.mustRun(workflow.Options{Gate: workflow.GateRerun})
	if len(sum.Approved) != 1 || sum.Approved[0] != "01-plan" || sum.Ran[0].Stage != "02-write" {
		t.Fatalf("rerun gate: approved %v ran %v", sum.Approved, sum.Ran)
	}
}

func TestAllRunsThrough(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	sum := h.mustRun(workflow.Options{All: true})
	if len(sum.Ran) != 3 {
		t.Fatalf("--all ran %d stages", len(sum.Ran))
	}
	st := h.status()
	if st["01-plan"] != state.Awaiting || st["02-write"] != state.Awaiting || st["03-count"] != state.Approved {
		t.Errorf("after --all: %v", st)
	}
}

func TestSecondRunRefused(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	lock, err := state.Acquire(openWS(t, h.dir).Disk, "another run")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, err = h.run(workflow.Options{})
	var le *state.LockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "another icm run") {
		t.Fatalf("second run: %v", err)
	}
	if n := len(h.srv.ChatRequests()); n != 0 {
		t.Errorf("a refused run made %d model calls", n)
	}
}

func TestModelErrorsAreClear(t *testing.T) {
	h := newSmall(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "other", ContextLength: 4096}}})
	_, err := h.run(workflow.Options{})
	if f := fault.From(err); f.Kind != fault.KindModelMissing || !strings.Contains(f.Hint, "pull") {
		t.Fatalf("model missing: kind %v, err %v, hint %q", f.Kind, err, f.Hint)
	}
	if st := h.status(); st["01-plan"] != state.Failed {
		t.Errorf("after a failed run 01-plan is %s", st["01-plan"])
	}
}

func TestIncompleteAnswerIsNotSaved(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Length("## Part A\n- cut of"))
	_, err := h.run(workflow.Options{})
	var inc *workflow.IncompleteError
	if !errors.As(err, &inc) {
		t.Fatalf("length answer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")); err == nil {
		t.Error("a cut-off answer was saved as the output")
	}
	kept, _ := filepath.Glob(filepath.Join(h.dir, "history/versions/01-plan/*-incomplete/answer.md"))
	if len(kept) != 1 {
		t.Errorf("the partial answer was not kept for inspection: %v", kept)
	}
	if st := h.status(); st["01-plan"] != state.Failed {
		t.Errorf("01-plan is %s after an incomplete answer", st["01-plan"])
	}
}

func TestCancelledRunLeavesConsistentState(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		ws := h.ws()
		eng, _ := workflow.New(ws, workflow.Options{Client: h.client, Permit: trusted(ws)})
		_, err := eng.Run(ctx)
		done <- err
	}()
	if err := h.srv.AwaitChats(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v", err)
	}
	// A cancel is not a failure: the stage is as it was before the run.
	if st := h.status(); st["01-plan"] != state.Pending {
		t.Errorf("after cancel: %s", st["01-plan"])
	}
	// The lock is free again.
	l, err := state.Acquire(openWS(t, h.dir).Disk, "check")
	if err != nil {
		t.Fatalf("lock after cancel: %v", err)
	}
	l.Release()
}

func TestModelOverrideIsNotStaleAndCancelKeepsApproval(t *testing.T) {
	h := newSmall(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: model, ContextLength: 32768}, {Name: "other:7b", ContextLength: 32768},
	}})
	// The first plan call answers; the second (the rerun) hangs until cancelled.
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Times(1).Reply(ollamatest.Text(plan(2)))
	h.srv.On(ollamatest.UserContains("PLAN the parts")).Reply(ollamatest.Hang())
	h.mustRun(workflow.Options{Model: "other:7b"})
	rep := check.Run(h.ws(), check.Options{})
	p, err := rep.Pipeline("other:7b")
	if err != nil {
		t.Fatal(err)
	}
	if p.Stages[0].Status != state.Awaiting {
		t.Fatalf("with the run's override 01-plan is %s (%s)", p.Stages[0].Status, p.Stages[0].Reason)
	}
	if _, err := workflow.Approve(context.Background(), h.ws(), "01-plan", workflow.ApproveOptions{Permit: trusted(h.ws()), Model: "other:7b"}); err != nil {
		t.Fatal(err)
	}
	// Without the override the configured model differs: stale.
	if p, _ := check.Run(h.ws(), check.Options{}).Pipeline(""); p.Stages[0].Status != state.Stale {
		t.Errorf("without the override 01-plan is %s", p.Stages[0].Status)
	}
	// A cancelled rerun of the approved stage leaves it approved.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		eng, _ := workflow.New(h.ws(), workflow.Options{Client: h.client, Model: "other:7b", Stage: "01-plan", Permit: trusted(h.ws())})
		_, err := eng.Run(ctx)
		done <- err
	}()
	if err := h.srv.Await(context.Background(), func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the rerun was not cancelled: %v", err)
	}
	if p, _ := check.Run(h.ws(), check.Options{}).Pipeline("other:7b"); p.Stages[0].Status != state.Approved {
		t.Errorf("after a cancelled rerun 01-plan is %s (%s)", p.Stages[0].Status, p.Stages[0].Reason)
	}
}

// An output that was there before any run (shipped with the workspace, or
// written by hand) is not overwritten either, and the refusal says what
// it is: committed, not made by icm, so nothing was "edited since the
// last run"; it asks whether to keep it or regenerate it.
func TestAnOutputNoRunWroteIsNotOverwritten(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	p := filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("the author's own plan\n"), 0o644)
	_, err := h.run(workflow.Options{Stage: "01-plan", Force: true})
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Kind != fault.KindEditedOutput {
		t.Fatalf("running over an output no run wrote: %v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "since the last run") || !strings.Contains(msg, "committed with the workspace, not made by icm") {
		t.Errorf("the refusal reads %q", msg)
	}
	if !strings.Contains(fe.Hint, "kept in history") {
		t.Errorf("hint %q", fe.Hint)
	}
	if got := h.read("pipeline/01-plan/output/plan.md"); got != "the author's own plan\n" {
		t.Fatalf("the output was overwritten: %q", got)
	}
	// Regenerate: the author's file is kept as a version, as the hint says.
	h.mustRun(workflow.Options{Stage: "01-plan", Committed: state.RegenerateCommitted})
	kept, _ := filepath.Glob(filepath.Join(h.dir, "history/versions/01-plan/*/plan.md"))
	found := false
	for _, k := range kept {
		if data, _ := os.ReadFile(k); string(data) == "the author's own plan\n" {
			found = true
		}
	}
	if !found {
		t.Errorf("the present version was not kept: %v", kept)
	}
}
