package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
)

// Case 1: a stage's output/ folder that is a symlink out of the workspace
// is an error of icm check, and icm run writes nothing through it.
func TestOutputFolderLinkedOutIsRefused(t *testing.T) {
	dir := newWS(t, oneStage)
	out := newOutside(t, nil)
	linkOut(t, dir, "pipeline/01-a/output", out.dir)
	vars, _ := modelVars(t, "THE ANSWER")

	stdout, _, err := runIn(t, dir, vars, "check")
	if err == nil || !strings.Contains(stdout, "pipeline/01-a/output") || !strings.Contains(stdout, "outside the workspace") {
		t.Errorf("check (err %v) does not report the output folder linked out:\n%s", err, stdout)
	}
	runOut, runErr, err := runIn(t, dir, vars, "run")
	if err == nil {
		t.Errorf("run wrote through an output folder linked out of the workspace:\n%s%s", runOut, runErr)
	}
	if got := files(out.dir); len(got) != 0 {
		t.Errorf("the folder outside holds %v after the run", got)
	}
}

// Case 2: the state folders (a stage's .icm, the workspace's .icm and
// history) linked out are errors, and a run writes no record, lock or
// trace (with the whole prompt) through them.
func TestStateFoldersLinkedOutAreRefused(t *testing.T) {
	for _, rel := range []string{"pipeline/01-a/.icm", ".icm", "history"} {
		t.Run(rel, func(t *testing.T) {
			dir := newWS(t, oneStage)
			out := newOutside(t, nil)
			linkOut(t, dir, rel, out.dir)
			vars, _ := modelVars(t, "THE ANSWER")
			stdout, _, err := runIn(t, dir, vars, "check")
			if err == nil || !strings.Contains(stdout, rel) || !strings.Contains(stdout, "outside the workspace") {
				t.Errorf("check (err %v) does not report %s linked out:\n%s", err, rel, stdout)
			}
			if runOut, runErr, err := runIn(t, dir, vars, "run"); err == nil {
				t.Errorf("run went ahead with %s linked out:\n%s%s", rel, runOut, runErr)
			}
			_, _, _ = runIn(t, dir, vars, "status")
			if got := files(out.dir); len(got) != 0 {
				t.Errorf("the folder outside holds %v", got)
			}
		})
	}
}

// Case 3: an output file that is a symlink to a file outside is not the
// stage's output: check reports it, status does not hash it, approve
// refuses, export does not copy its text.
func TestOutputFileLinkedOutIsNotTheOutput(t *testing.T) {
	dir := newWS(t, oneStage)
	out := newOutside(t, map[string]string{"stolen.md": "# Stolen\n\n" + secret + "\n"})
	linkOut(t, dir, "pipeline/01-a/output/out.md", out.path("stolen.md"))
	vars, _ := modelVars(t, "THE ANSWER")

	stdout, _, err := runIn(t, dir, vars, "check")
	if err == nil || !strings.Contains(stdout, "output/out.md") || !strings.Contains(stdout, "outside the workspace") {
		t.Errorf("check (err %v) does not report the output linked out:\n%s", err, stdout)
	}
	status, _, _ := runIn(t, dir, vars, "status", "--json")
	data, _ := os.ReadFile(out.path("stolen.md"))
	if strings.Contains(status, state.Hash(data)) {
		t.Errorf("status hashed the file outside as the stage's output:\n%s", status)
	}
	apOut, apErr, err := runIn(t, dir, vars, "approve", "01-a")
	if err == nil {
		t.Errorf("approve accepted a file outside the workspace as the output:\n%s%s", apOut, apErr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipeline/01-a/.icm/approval.json")); err == nil {
		t.Error("an approval was written")
	}
	exOut, exErr, err := runIn(t, dir, vars, "export", "01-a", "-o", "-")
	if err == nil {
		t.Errorf("export read the file outside:\n%.300s", exOut)
	}
	noSecretIn(t, dir, stdout, status, apOut, apErr, exOut, exErr)
}

// Case 4: an input swapped between a file and a symlink to a file outside
// (atomic renames, as fast as they go) while probes read it: the probe
// opens through the workspace root, so no probe ever sees the outside file.
func TestSwappedInputNeverLeaksIntoProbes(t *testing.T) {
	dir := newWS(t, oneStage)
	out := newOutside(t, map[string]string{"secret.md": secret + "\n"})
	input := filepath.Join(dir, "pipeline/01-a/input.md")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread() // a thread of its own, racing the probes on the other core
		tmpFile, tmpLink := input+".file", input+".link"
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				_ = os.WriteFile(tmpFile, []byte("The input.\n"), 0o644)
				_ = os.Rename(tmpFile, input)
			} else {
				_ = os.Symlink(out.path("secret.md"), tmpLink)
				_ = os.Rename(tmpLink, input)
			}
			swaps.Add(1)
		}
	}()
	const probes = 2000
	leaks, read := 0, 0
	for i := 0; i < probes; i++ {
		// At least one swap between two probes, so the race is run every time.
		for swaps.Load() <= int64(i) {
			runtime.Gosched()
		}
		stdout, stderr, _ := runIn(t, dir, nil, "probe", "01-a")
		if strings.Contains(stdout+stderr, secret) {
			leaks++
		}
		if strings.Contains(stdout, "The input.") {
			read++
		}
	}
	close(stop)
	wg.Wait()
	if leaks > 0 {
		t.Errorf("%d of %d probes printed the file outside the workspace (%d swaps)", leaks, probes, swaps.Load())
	}
	if read == 0 || swaps.Load() < probes {
		t.Errorf("the race was not exercised: %d probes read the input, %d swaps", read, swaps.Load())
	}
}

// Case 5: an Outputs entry with an absolute path is told at its line, not
// silently written under output/: a warning, since icm never writes it and
// the stage's other outputs are written as ever.
func TestAbsoluteOutputPathIsReported(t *testing.T) {
	dir := newWS(t, strings.Replace(oneStage, "- out.md -> output/", "- out.md -> output/\n- /tmp/x/pwned.md -> output/", 1))
	stdout, _, _ := runIn(t, dir, nil, "check")
	if !strings.Contains(stdout, "pipeline/01-a/CONTEXT.md:11:") || !strings.Contains(stdout, "warning: /tmp/x/pwned.md") {
		t.Errorf("check does not report the absolute output path at its line:\n%s", stdout)
	}
}

// Case 6: a stage folder that is a symlink out of the workspace is
// reported, not skipped: "0 stages, every stage is approved" is a lie.
func TestStageFolderLinkedOutIsReported(t *testing.T) {
	dir := newWS(t, oneStage)
	out := newOutside(t, map[string]string{"02-b/CONTEXT.md": "# Stage: 02-b\n\n## Process\nGo.\n\n## Outputs\n- b.md -> output/\n"})
	linkOut(t, dir, "pipeline/02-b", out.path("02-b"))
	vars, _ := modelVars(t, "THE ANSWER")
	stdout, _, err := runIn(t, dir, vars, "check")
	if err == nil || !strings.Contains(stdout, "pipeline/02-b") || !strings.Contains(stdout, "outside the workspace") {
		t.Errorf("check (err %v) does not report the stage folder linked out:\n%s", err, stdout)
	}
	// With the one real stage run and approved, status must still not say
	// the workspace is done.
	if o, e, err := runIn(t, dir, vars, "run", "--stage", "01-a"); err != nil {
		t.Fatalf("run 01-a: %v\n%s%s", err, o, e)
	}
	if o, e, err := runIn(t, dir, vars, "approve", "01-a"); err != nil {
		t.Fatalf("approve 01-a: %v\n%s%s", err, o, e)
	}
	status, _, _ := runIn(t, dir, vars, "status")
	if strings.Contains(status, "every stage is approved") || !strings.Contains(status, "02-b") {
		t.Errorf("status hides the stage folder linked out:\n%s", status)
	}
}
