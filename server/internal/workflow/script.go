package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxScriptOutput caps what a script may print into the trace.
const maxScriptOutput = 64 << 10

// script runs a ## Script stage: `sh -c` in the stage folder with
// ICM_WORKSPACE, ICM_STAGE and ICM_OUTPUT set, killed with its whole
// process group when the timeout passes or the run is cancelled.
func (r *run) script(ctx context.Context) error {
	e, st := r.e, r.st
	timeout := e.ws.Config.Workflow.ScriptTimeout.Duration
	if s := r.c.Script.TimeoutSeconds; s > 0 {
		timeout = time.Duration(s * float64(time.Second))
	}
	if timeout <= 0 {
		timeout = time.Minute
	}
	outDir := filepath.Join(st.Dir, "output")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("unable to create %s: %w", outDir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", r.c.Script.Command)
	cmd.Dir = st.Dir
	cmd.Env = append(os.Environ(), "ICM_WORKSPACE="+e.ws.Root, "ICM_STAGE="+st.Name, "ICM_OUTPUT="+outDir, "ICM_RUN_ID="+e.runID)
	cmd.Env = append(cmd.Env, r.selfEnv()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	w := &limitWriter{buf: &out, max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	// Whatever happened, leave no process of the group behind.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	text := strings.TrimSpace(out.String())
	e.emit(Event{Kind: EventScript, Stage: st.Name, Message: tail(text, 2000), Duration: time.Since(start)})
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("stage %s: the script did not finish within %s and was stopped", st.Name, timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &exit):
		return fmt.Errorf("stage %s: the script exited with status %d: %s", st.Name, exit.ExitCode(), tail(text, 500))
	case err != nil:
		return fmt.Errorf("stage %s: unable to run the script: %w", st.Name, err)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

type limitWriter struct {
	buf *bytes.Buffer
	max int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			p2 := p[:room]
			l.buf.Write(p2)
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}
