package workflow

import (
	"context"
	"os/exec"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/reap"
)

// scriptStopWait bounds how long a stopped script's reaper may take to
// end what is below it (it takes milliseconds) before it is killed too,
// and then how long its output may stay open.
const scriptStopWait = 2 * time.Second

// scriptCommand is `sh -c command` in dir, stopped with everything it
// started when ctx ends; permit is asked first (refused, the command's
// Err says why and nothing starts).
//
// On Linux the shell runs under a reaper (package reap) in mode All: a
// helper that left the script's process group and session (setsid, a
// daemon) still comes back to the reaper when orphaned, and the reaper
// ends every process below it when the script exits, when icm stops it,
// and when icm itself is gone (SIGTERM, Ctrl-C or SIGKILL alike). Ending
// the process group alone would miss such helpers. Without a reaper the
// shell leads a process group of its own, which is killed whole.
func scriptCommand(ctx context.Context, permit act.Permit, dir, command string) *exec.Cmd {
	a := act.Action{Kind: act.Script, Argv: []string{"sh", "-c", command}, Dir: dir, Named: act.Named{Line: command}}
	self := reap.Self()
	if self == "" {
		cmd := act.Command(ctx, permit, a)
		cmd.SysProcAttr = reap.ProcAttr()
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = scriptStopWait
		return cmd
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		// Run reports it as it would for sh itself.
		return act.Command(ctx, permit, a)
	}
	a.Argv = append([]string{self}, reap.Args(reap.All, sh, []string{"-c", command})...)
	cmd := act.Command(ctx, permit, a)
	cmd.SysProcAttr = reap.ProcAttr()
	// SIGTERM to the reaper alone: it ends everything below it, the
	// script's group and whatever left it, and exits. Should it not
	// (it was stopped, say), WaitDelay kills it and the group goes
	// after Run.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = scriptStopWait
	return cmd
}
