package reap

import (
	"bufio"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// under runs sh -c script under the reaper (this test binary) in mode.
func under(t *testing.T, mode Mode, script string) *exec.Cmd {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(Self(), Args(mode, sh, []string{"-c", script})...)
	cmd.SysProcAttr = ProcAttr()
	return cmd
}

// gone waits up to a few seconds for pid to end.
func gone(pid int) bool {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if p, ok := Stat(pid); !ok || !p.Live() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestExitStatusPassesThrough(t *testing.T) {
	err := under(t, All, "exit 3").Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("got %v, want exit status 3", err)
	}
	err = under(t, All, "kill -TERM $$").Run()
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("got %v, want the reaper killed by SIGTERM as the command was", err)
	}
}

// helperScript starts a helper outside its group and session, prints the
// helper's pid and waits.
const helperScript = `setsid sh -c 'echo $$; exec sleep 300' & wait`

// startHelper runs script (which prints the pid of a helper it starts
// outside its group and session) under the reaper in mode; it returns the
// helper's pid.
func startHelper(t *testing.T, mode Mode, script string) (*exec.Cmd, int) {
	t.Helper()
	cmd := under(t, mode, script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("no pid from the script: %q %v", line, err)
	}
	if p, ok := Stat(pid); !ok || p.Group == cmd.Process.Pid {
		t.Fatalf("the helper %d is in the reaper's group: setsid did not take", pid)
	}
	return cmd, pid
}

func TestAllEndsEverythingOnTheFirstSignal(t *testing.T) {
	cmd, helper := startHelper(t, All, helperScript)
	// The reaper alone is signalled.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !gone(helper) {
		_ = syscall.Kill(helper, syscall.SIGKILL)
		t.Fatal("the helper that left the group outlived the reaper")
	}
}

func TestGroupEndsWhatLeftTheGroup(t *testing.T) {
	// The script ignores the signal and stays: what ends the helper can
	// only be the reaper's answer to the signal, not the script's exit.
	cmd, helper := startHelper(t, Group, `trap '' TERM; setsid sh -c 'echo $$; exec sleep 300' & while :; do sleep 1; done`)
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	// The group is signalled, as a session closing does.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !gone(helper) {
		_ = syscall.Kill(helper, syscall.SIGKILL)
		t.Fatal("the helper that left the group outlived the signal to the group")
	}
	if p, ok := Stat(cmd.Process.Pid); !ok || !p.Live() {
		t.Fatal("the reaper ended with the signal: the test did not see its sweep")
	}
}
