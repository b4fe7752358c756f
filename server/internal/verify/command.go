package verify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/state"
)

// CommandRunner runs a `run:` check's command and returns its stdout, exit
// code and any failure to run it at all.
type CommandRunner func(ctx context.Context, command string, env Env) (stdout string, code int, err error)

// CommandTimeout bounds a `run:` check.
const CommandTimeout = 2 * time.Minute

// maxCommandOutput caps what a check's command may print.
const maxCommandOutput = 1 << 20

func runCommand(ctx context.Context, command string, env Env) ([]state.VerifyFinding, error) {
	runner := env.Runner
	if runner == nil {
		runner = ShellRunner
	}
	out, code, err := runner(ctx, command, env)
	if err != nil {
		return nil, err
	}
	var fs []state.VerifyFinding
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), maxCommandOutput)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "FIX:"); ok {
			fs = append(fs, state.VerifyFinding{File: env.Stage, Message: strings.TrimSpace(rest)})
		}
	}
	if code != 0 && len(fs) == 0 {
		fs = append(fs, state.VerifyFinding{File: env.Stage, Message: fmt.Sprintf("`%s` exited with status %d", command, code)})
	}
	if code == 0 {
		return nil, nil
	}
	return fs, nil
}

// ShellRunner runs command with `sh -c` in the stage folder, with the
// ICM_* variables set, a timeout that kills its whole process group, and
// its output capped; env.Permit is asked first (a refusal is the error,
// and nothing runs).
func ShellRunner(ctx context.Context, command string, env Env) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	kind := env.RunKind
	if kind == "" {
		kind = act.Check
	}
	cmd := act.Command(ctx, env.Permit, act.Action{Kind: kind, Argv: []string{"sh", "-c", command}, Dir: env.StageDir, Named: act.Named{Line: command}})
	cmd.Env = append(os.Environ(), "ICM_WORKSPACE="+env.Workspace, "ICM_STAGE="+env.Stage, "ICM_OUTPUT="+env.StageDir+"/output")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out capped
	out.max = maxCommandOutput
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), -1, fmt.Errorf("`%s` did not finish within %s", command, CommandTimeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode(), nil
	}
	var refused *act.Refusal
	if errors.As(err, &refused) {
		return "", -1, err
	}
	if err != nil {
		return "", -1, fmt.Errorf("unable to run `%s`: %w", command, err)
	}
	return out.String(), 0, nil
}

// capped is a buffer that keeps at most max bytes.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}
