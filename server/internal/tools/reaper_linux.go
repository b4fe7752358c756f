package tools

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A stdio server runs under a reaper: this binary again, started with
// reaperArg, which makes itself a child subreaper (PR_SET_CHILD_SUBREAPER)
// and then starts the server. Killing the server's process group does not
// reach a helper that called setsid, but once such a helper is orphaned it
// is reparented to the nearest subreaper, the reaper, so the reaper can
// end it. The reaper leads the process group (the server stays in it),
// so stopping a session works as before; what the reaper adds is a sweep
// of every process below it that is not in the group.
//
// Any binary that links this package can be the reaper (the hook is an
// init function, so a test binary re-run this way does not run its tests):
// icm itself, and the test binaries of packages that open sessions.
const reaperArg = "__icm-mcp-reaper"

func init() {
	if len(os.Args) > 2 && os.Args[1] == reaperArg {
		os.Exit(reaperMain(os.Args[2:]))
	}
}

// defaultReaper is the binary that reaps: this one.
func defaultReaper() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// sysProcAttr starts the reaper leading its own process group (so the
// group can be signalled as one). If icm itself dies the kernel sends the
// reaper SIGTERM, and the reaper ends everything below it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// reaperSweep bounds how long the reaper spends ending what is left.
const reaperSweep = 2 * time.Second

// reaperMain runs the server argv[0] with arguments argv[1:] (argv[0] is a
// path, already looked up by the parent), waits for it, ends every process
// left below it, and exits as the server did.
func reaperMain(argv []string) int {
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "icm: unable to watch the MCP server's processes: %v\n", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	wd, _ := os.Getwd()
	server, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Dir: wd, Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The server goes if the reaper does; it stays in the reaper's group.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "icm: unable to start %s: %v\n", argv[0], err)
		return 127
	}
	// Only the server holds the pipes now: once it and its helpers are
	// gone, icm sees the end of its output at once.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup3(int(null.Fd()), fd, 0)
		}
		null.Close()
	}
	exited := make(chan syscall.WaitStatus, 1)
	go waitFor(server.Pid, exited)
	for {
		select {
		case ws := <-exited:
			sweep(0)
			return exitAs(ws)
		case sig := <-sigs:
			if os.Getppid() != parent {
				// icm is gone: nobody will stop the server; end it all.
				sweep(0)
				return 128 + int(sig.(syscall.Signal))
			}
			// icm is stopping the group: helpers outside it get no
			// signal of icm's, so they are ended now; the server and the
			// group's others handle the signal they got themselves.
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
			exited <- 0 // no children at all: the server is gone
			return
		case got == pid:
			exited <- ws
			return
		}
	}
}

// sweep ends, with SIGKILL, every process below the reaper (outside the
// group keep, when keep is not 0), until none is left or reaperSweep has
// passed. Killing a process orphans its children, which come to the
// reaper, so each pass finds the next generation.
func sweep(keep int) {
	self := os.Getpid()
	deadline := time.Now().Add(reaperSweep)
	for time.Now().Before(deadline) {
		var targets []int
		for _, pid := range descendants(self) {
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

// descendants lists the live processes below pid, read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid, ok := procParent(e.Name())
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// exitAs ends the reaper the way the server ended: with its exit code, or
// killed by the same signal.
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
