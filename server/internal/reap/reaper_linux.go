package reap

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/icm-tool/icm/server/internal/act"
)

func init() {
	if len(os.Args) > 3 && os.Args[1] == hookArg {
		os.Exit(reaperMain(Mode(os.Args[2]), os.Args[3:]))
	}
}

// ProcAttr starts the reaper (or, without one, the command itself)
// leading a process group of its own, so the group can be signalled as
// one. If the thread of icm that started it ends, icm above all, the
// kernel sends it SIGTERM, and the reaper ends everything below it.
func ProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// sweepFor bounds how long the reaper spends ending what is left.
const sweepFor = 2 * time.Second

// parentTick is how often the reaper checks that icm is still there: the
// parent-death signal follows the thread that started the reaper, which
// is not always icm's last.
const parentTick = 250 * time.Millisecond

// reaperMain runs the command argv[0] with arguments argv[1:] (argv[0] is
// a path, already looked up by the parent), waits for it, ends every
// process left below it, and exits as the command did.
func reaperMain(mode Mode, argv []string) int {
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "icm: unable to watch the processes of %s: %v\n", argv[0], err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	wd, _ := os.Getwd()
	// What the reaper starts is what its parent asked the permit of
	// before starting the reaper: here it is icm's own work.
	child, err := act.StartProcess(act.Own("the reaper starting the command its parent was permitted"), act.Action{Kind: act.Self, Argv: argv}, &os.ProcAttr{
		Dir: wd, Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The command goes if the reaper does; it stays in the reaper's group.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "icm: unable to start %s: %v\n", argv[0], err)
		return 127
	}
	// Only the command holds the pipes now: once it and what it started
	// are gone, icm sees the end of their output at once.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup3(int(null.Fd()), fd, 0)
		}
		null.Close()
	}
	exited := make(chan syscall.WaitStatus, 1)
	go waitFor(child.Pid, exited)
	tick := time.NewTicker(parentTick)
	defer tick.Stop()
	for {
		select {
		case ws := <-exited:
			sweep(0)
			return exitAs(ws)
		case <-tick.C:
			if os.Getppid() != parent {
				sweep(0)
				return 128 + int(syscall.SIGTERM)
			}
		case sig := <-sigs:
			if mode == All || os.Getppid() != parent {
				// Stopped outright, or icm is gone and nobody will stop
				// the command: end it all.
				sweep(0)
				return 128 + int(sig.(syscall.Signal))
			}
			// icm is stopping the group: helpers outside it get no
			// signal of icm's, so they are ended now; the command and
			// the group's others handle the signal they got themselves.
			sweep(syscall.Getpgrp())
		}
	}
}

// waitFor reaps children until pid has exited, and reports its status.
// Other children (orphans reparented to the reaper) are reaped as they go.
func waitFor(pid int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			exited <- 0 // no children at all: the command is gone
			return
		case got == pid:
			exited <- ws
			return
		}
	}
}

// sweep ends, with SIGKILL, every process below the reaper (outside the
// group keep, when keep is not 0), until none is left or sweepFor has
// passed. Killing a process orphans its children, which come to the
// reaper, so each pass finds the next generation.
func sweep(keep int) {
	self := os.Getpid()
	deadline := time.Now().Add(sweepFor)
	for time.Now().Before(deadline) {
		var targets []int
		for _, pid := range Descendants(self) {
			if keep != 0 {
				if g, err := syscall.Getpgid(pid); err == nil && g == keep {
					continue
				}
			}
			targets = append(targets, pid)
		}
		if len(targets) == 0 {
			return
		}
		for _, pid := range targets {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		reapAvailable()
		time.Sleep(5 * time.Millisecond)
	}
}

// reapAvailable reaps every child that has exited, without waiting.
func reapAvailable() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// exitAs ends the reaper the way the command ended: with its exit code,
// or killed by the same signal.
func exitAs(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}
