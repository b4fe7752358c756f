package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// SIGTERM ends icm within a second whatever it is waiting on. Here the
// run waits on a model call that never answers while the stage's MCP
// server ignores both the end of its stdin and SIGTERM, so a polite
// shutdown alone would take seconds; and no process of the server is left.
func TestSIGTERMEndsIcmWithinASecond(t *testing.T) {
	pids := t.TempDir()
	h := newSmall(t, ollamatest.Config{})
	cfg := `[model]
name = "qwen3.5:9b"
[mcp.servers.fixture]
command = "` + fixtureBin + `"
args = ["-stubborn", "-piddir", "` + pids + `"]
`
	must(t, os.WriteFile(filepath.Join(h.dir, "config.toml"), []byte(cfg), 0o644))
	must(t, os.WriteFile(filepath.Join(h.dir, "pipeline/01-plan/CONTEXT.md"), []byte(`# Stage: 01-plan

## Inputs
- Layer 4 (working): idea.md

## Tools
fixture: echo

## Process
PLAN the parts.

## Outputs
- plan.md -> output/
`), 0o644))
	h.srv.Default(ollamatest.Hang())
	cmd, out := h.icmProcess("run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.srv.Await(ctx, func(s ollamatest.Stats) bool { return s.Active == 1 }); err != nil {
		kill9(cmd)
		t.Fatalf("the run never called the model: %v\n%s", err, out)
	}
	start := time.Now()
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		kill9(cmd)
		t.Fatalf("icm was still running 10s after SIGTERM\n%s", out)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("icm took %s to end after SIGTERM, want about a second at most", took.Round(10*time.Millisecond))
	}
	// The server icm started goes with it.
	deadline := time.Now().Add(5 * time.Second)
	for _, f := range listPIDs(t, pids) {
		for alive(f) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(f) {
			t.Errorf("MCP server process %d outlived icm", f)
			_ = syscall.Kill(f, syscall.SIGKILL)
		}
	}
}

// listPIDs reads the pid files the fixture processes wrote.
func listPIDs(t *testing.T, dir string) []int {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	var out []int
	for _, m := range matches {
		if pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(m), ".pid")); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
