package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func openRoot(t *testing.T, dir string) *workspace.Root {
	t.Helper()
	r, err := workspace.OpenRoot(dir, workspace.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestLockRefusesSecondRun(t *testing.T) {
	root := openRoot(t, t.TempDir())
	l, err := Acquire(root, "icm run")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(root, "icm run")
	var le *LockedError
	if !errors.As(err, &le) || le.Holder == "" {
		t.Fatalf("second acquire: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(root, "icm run")
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	l2.Release()
}

const pipe = `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Inputs
- Layer 4 (working): input.md
## Process
Go.
## Outputs
- a.md -> output/
-- pipeline/01-a/input.md --
idea
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b
## Inputs
- Layer 4 (working): ../01-a/output/a.md
## Process
Go.
## Outputs
- b.md -> output/
`

func contracts(t *testing.T, ws *workspace.Workspace) map[string]*contract.Contract {
	out := map[string]*contract.Contract{}
	for _, st := range ws.Stages {
		src, err := os.ReadFile(st.Contract)
		if err != nil {
			t.Fatal(err)
		}
		out[st.Name] = contract.Parse(st.Contract, src)
	}
	return out
}

// fakeRun writes what a finished run leaves behind.
func fakeRun(t *testing.T, ws *workspace.Workspace, name, output string) {
	t.Helper()
	st, _ := ws.Stage(name)
	c := contracts(t, ws)[name]
	outRel := st.Rel + "/" + c.Outputs[0].Path
	if err := ws.Disk.WriteFile(outRel, []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	fp, err := Fingerprint(ws, st, c)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{Stage: name, RunID: "r1", Started: time.Now(), Finished: time.Now(), Status: RunDone,
		Inputs: fp, Settings: ResolveSettings(ws.Config.Model, c.Model, "").Hash(), Outputs: map[string]string{outRel: Hash([]byte(output))}}
	if err := WriteRecord(ws.Disk, st.Dir, rec); err != nil {
		t.Fatal(err)
	}
}

func approve(t *testing.T, ws *workspace.Workspace, name string) {
	st, _ := ws.Stage(name)
	outs, err := OutputHashes(ws, st, contracts(t, ws)[name])
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteApproval(ws.Disk, st.Dir, &Approval{Stage: name, ApprovedAt: time.Now(), Outputs: outs, By: "user"}); err != nil {
		t.Fatal(err)
	}
}

func statuses(t *testing.T, ws *workspace.Workspace) (string, string, Next) {
	p, err := Pipeline(ws, contracts(t, ws), PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(p.Stages[0].Status), string(p.Stages[1].Status), p.Next
}

func TestStatusLifecycle(t *testing.T) {
	dir := wstest.Write(t, pipe)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what, wantA, wantB, wantNext string) {
		t.Helper()
		a, b, next := statuses(t, ws)
		if a != wantA || b != wantB || next.Stage+" "+next.Action != wantNext {
			t.Fatalf("%s: states %s/%s next %q; want %s/%s %q", what, a, b, next.Stage+" "+next.Action, wantA, wantB, wantNext)
		}
	}
	step("fresh", "pending", "pending", "01-a run")
	fakeRun(t, ws, "01-a", "v1")
	step("after run", "awaiting-review", "pending", "01-a approve")
	approve(t, ws, "01-a")
	step("after approve", "approved", "pending", "02-b run")
	fakeRun(t, ws, "02-b", "b1")
	approve(t, ws, "02-b")
	step("all approved", "approved", "approved", " done")

	// A person edits the approved upstream output: it needs review again,
	// and the downstream stage that read it is stale.
	os.WriteFile(filepath.Join(dir, "pipeline/01-a/output/a.md"), []byte("v1 edited"), 0o644)
	step("upstream output edited", "awaiting-review", "stale", "01-a approve")
	approve(t, ws, "01-a")
	step("edit approved", "approved", "stale", "02-b run")

	// Changing an input of 01-a makes it stale.
	os.WriteFile(filepath.Join(dir, "pipeline/01-a/input.md"), []byte("new idea"), 0o644)
	step("input changed", "stale", "stale", "01-a run")

	// A failed run is reported as failed.
	st, _ := ws.Stage("01-a")
	rec, _ := ReadRecord(ws.Disk, st.Dir)
	rec.Status, rec.Error = RunFailed, "model missing"
	WriteRecord(ws.Disk, st.Dir, rec)
	step("failed", "failed", "stale", "01-a run")
}

func TestSettingsChangeMakesStale(t *testing.T) {
	dir := wstest.Write(t, pipe)
	ws, _ := workspace.Open(dir, nil)
	fakeRun(t, ws, "01-a", "v1")
	approve(t, ws, "01-a")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[model]\nname = \"other:7b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, _ = workspace.Open(dir, nil)
	if a, _, _ := statuses(t, ws); a != "stale" {
		t.Errorf("after a model change 01-a is %s, want stale", a)
	}
}

// TestOverrideRecordIsJudgedByTheConfiguredSettings: a record of a run
// made with a one-off model (the configured settings' hash, the model it
// ran with, the configured one it stood in for) reads approved once
// approved, tells both models, and turns stale only when the configured
// model changes. Before, Derive knew no such record: the stage read as
// approved with no word of the model that wrote it.
func TestOverrideRecordIsJudgedByTheConfiguredSettings(t *testing.T) {
	dir := wstest.Write(t, pipe+"-- config.toml --\n[model]\nname = \"qwen3.5:9b\"\n")
	ws, _ := workspace.Open(dir, nil)
	fakeRun(t, ws, "01-a", "v1")
	st, _ := ws.Stage("01-a")
	rec, _ := ReadRecord(ws.Disk, st.Dir)
	rec.Model, rec.Override, rec.Configured = "big:32b", true, ws.Config.Model.Name
	if err := WriteRecord(ws.Disk, st.Dir, rec); err != nil {
		t.Fatal(err)
	}
	approve(t, ws, "01-a")
	p, err := Pipeline(ws, contracts(t, ws), PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stages[0]
	if s.Status != Approved || s.RanWith != "big:32b" || s.Configured != ws.Config.Model.Name {
		t.Fatalf("01-a: %s (%s), ran with %q, configured %q", s.Status, s.Reason, s.RanWith, s.Configured)
	}
	if want := "approved · ran with big:32b (configured: " + ws.Config.Model.Name + ")"; s.Face.Text() != want {
		t.Errorf("face %q, want %q", s.Face.Text(), want)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[model]\nname = \"other:7b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, _ = workspace.Open(dir, nil)
	p, _ = Pipeline(ws, contracts(t, ws), PipelineOptions{})
	if s := p.Stages[0]; s.Status != Stale || !strings.Contains(s.Reason, "other:7b") || !strings.Contains(s.Reason, "it ran with big:32b") {
		t.Errorf("after the configured model changed: %s (%s)", s.Status, s.Reason)
	}
}

func TestRecordVersionGuard(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, StateDir), 0o755)
	os.WriteFile(filepath.Join(dir, StateDir, RunFile), []byte(`{"version": 99}`), 0o644)
	if _, err := ReadRecord(openRoot(t, dir), dir); err == nil {
		t.Error("a record from a newer icm must be refused")
	}
	os.WriteFile(filepath.Join(dir, StateDir, RunFile), []byte(`{broken`), 0o644)
	if _, err := ReadRecord(openRoot(t, dir), dir); err == nil {
		t.Error("a broken record must be an error")
	}
}
