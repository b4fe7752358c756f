package workflow_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// escapingScript records its own pid, starts a helper that leaves the
// script's process group and session (setsid) and records its pid too,
// then waits. The helper keeps the script's stdout open, as a daemon that
// forgot to close it would. PIDDIR is replaced by the test's folder.
const escapingScript = "```sh\n" +
	`touch "PIDDIR/$$.pid"
setsid sh -c 'touch "$0/$$.pid"; exec sleep 300' "PIDDIR" &
sleep 300
` + "```\n"

// scriptWorkspace is a workspace of one Script stage running script.
func scriptWorkspace(t *testing.T, pids, timeout string) *harness {
	t.Helper()
	script := strings.ReplaceAll(escapingScript, "PIDDIR", pids)
	archive := `
-- CLAUDE.md --
# Identity
You help.
-- config.toml --
[model]
name = "qwen3.5:9b"
-- pipeline/01-build/CONTEXT.md --
# Stage: 01-build

## Script
timeout: ` + timeout + `
` + script + `
## Outputs
- built.txt -> output/
`
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3"}}})
	h := &harness{t: t, dir: wstest.Write(t, archive), srv: srv}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return h
}

// awaitPIDs waits until n processes have recorded themselves in dir.
func awaitPIDs(t *testing.T, dir string, n int, stop func()) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pids := listPIDs(t, dir)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the script's processes never started: %d of %d recorded", len(pids), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertAllGone fails for every recorded process still alive once bound
// has passed since the run ended, and kills it.
func assertAllGone(t *testing.T, dir string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for _, pid := range listPIDs(t, dir) {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d the script started is still running %s after the run ended", pid, bound)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// processBound is how long after a run ends every process it started
// must be gone. Ending them takes milliseconds; the bound leaves room
// for a loaded machine.
const processBound = 3 * time.Second

// TestCancelledScriptLeavesNoProcesses: cancelling a run ends the script
// and the helper that left its process group with setsid.
func TestCancelledScriptLeavesNoProcesses(t *testing.T) {
	pids := t.TempDir()
	h := scriptWorkspace(t, pids, "5m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		eng, err := workflow.New(h.ws(), workflow.Options{Client: h.client, Permit: trusted(h.ws())})
		if err != nil {
			done <- err
			return
		}
		_, err = eng.Run(ctx)
		done <- err
	}()
	awaitPIDs(t, pids, 2, cancel)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("run ended with %v, want it cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run was still going 10s after it was cancelled")
	}
	assertAllGone(t, pids, processBound)
}

// TestTimedOutScriptLeavesNoProcesses: a script past its timeout is
// stopped with everything it started.
func TestTimedOutScriptLeavesNoProcesses(t *testing.T) {
	pids := t.TempDir()
	h := scriptWorkspace(t, pids, "2s")
	start := time.Now()
	_, err := h.run(workflow.Options{})
	var f *fault.Error
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "did not finish within 2.0 s") {
		t.Fatalf("run: %v, want the script's timeout", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %s to stop a script with a 2s timeout", took.Round(time.Millisecond))
	}
	if n := len(listPIDs(t, pids)); n != 2 {
		t.Fatalf("%d processes recorded, want the script and its helper", n)
	}
	assertAllGone(t, pids, processBound)
}

// TestScriptProcessesEndWithIcm: SIGTERM ends icm and every process its
// script started; so does SIGKILL, which icm cannot catch.
func TestScriptProcessesEndWithIcm(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			pids := t.TempDir()
			h := scriptWorkspace(t, pids, "5m")
			cmd, out := h.icmProcess("run")
			awaitPIDs(t, pids, 2, func() { kill9(cmd) })
			// Only icm is signalled, not its group: what it started must
			// go because icm went.
			must(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				kill9(cmd)
				t.Fatalf("icm was still running 10s after %v\n%s", sig, out)
			}
			assertAllGone(t, pids, processBound)
		})
	}
}
