//go:build unix

package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/reap"
)

// inheritedEnv is all a stdio server gets from icm's own environment: enough
// to find programs and write temporary files, nothing that could hold a
// secret. Anything else must be listed in the server's env.
var inheritedEnv = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// childEnv builds the environment of a stdio server.
func childEnv(lookup func(string) (string, bool), configured map[string]string) []string {
	env := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := lookup(k); ok {
			env[k] = v
		}
	}
	for k, v := range configured {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// proc is a running stdio server: the child, its process group, and the
// pipes handed to mcp-go.
type proc struct {
	name   string
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *ring

	stderrR    *os.File
	stderrDone chan struct{}

	exited  chan struct{} // closed once the child has been reaped
	waitErr error         // valid after exited is closed

	closeStdout sync.Once
}

// procConfig is what startProc needs besides the server entry.
type procConfig struct {
	dir        string
	lookupEnv  func(string) (string, bool)
	ringSize   int
	exitLinger time.Duration
	// reaper, when set, is the binary that runs the server as a child
	// subreaper (see package reap), so helpers that leave the process
	// group are ended too.
	reaper string
	// permit is asked before the server starts.
	permit act.Permit
}

// program finds a stdio server's program as exec.Command would; when a
// reaper is to start it, it also finds out here that it cannot be, so
// the error says so rather than "exited during start-up" (a relative
// path is relative to the server's folder).
func program(command, dir string, reaper bool) (string, error) {
	path := command
	if filepath.Base(command) == command {
		p, err := exec.LookPath(command)
		if err != nil {
			return "", err
		}
		path = p
	}
	if reaper {
		p := path
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if _, err := exec.LookPath(p); err != nil {
			return "", err
		}
	}
	return path, nil
}

// startProc starts a stdio server in its own process group with a minimal
// environment; its stderr is drained into a ring from the first byte.
func startProc(ctx context.Context, s Server, pc procConfig) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("unable to start MCP server %q: %w", s.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("unable to start MCP server %q: %w", s.Name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("unable to start MCP server %q: %w", s.Name, err)
	}
	dir := pc.dir
	if s.Dir != "" {
		dir = s.Dir
	}
	path, err := program(s.Command, dir, pc.reaper != "")
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("unable to start MCP server %q (%s, from %s): %w; check the command and that it is installed", s.Name, s.Command, s.Location(), err)
	}
	w := s.named()
	a := act.Action{Kind: act.ToolServer, Argv: append([]string{s.Command}, s.Args...), Path: path, Dir: dir,
		Named: act.Named{Command: w.Command, Args: w.Args, Env: w.Env, Dir: w.Dir}}
	if pc.reaper != "" {
		a.Argv, a.Path = append([]string{pc.reaper}, reap.Args(reap.Group, path, s.Args)...), ""
	}
	// The server outlives the start-up: stop ends it, not ctx.
	cmd := act.Command(context.WithoutCancel(ctx), pc.permit, a)
	if cmd.Err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("unable to start MCP server %q (from %s): %w", s.Name, s.Location(), cmd.Err)
	}
	cmd.Env = childEnv(pc.lookupEnv, s.Env)
	cmd.Dir = dir
	// *os.File values are passed to the child as they are, so exec starts
	// no copying goroutines and Wait never waits on a grandchild that keeps
	// a pipe open.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = reap.ProcAttr()
	err = cmd.Start()
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("unable to start MCP server %q (%s, from %s): %w; check the command and that it is installed", s.Name, s.Command, s.Location(), err)
	}
	p := &proc{
		name: s.Name, cmd: cmd, pgid: cmd.Process.Pid,
		stdin: inW, stdout: outR, stderr: newRing(pc.ringSize), stderrR: errR,
		stderrDone: make(chan struct{}), exited: make(chan struct{}),
	}
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		close(p.stderrDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
		// A grandchild may still hold stdout open, so EOF may never come:
		// after a moment for the last answer to be read, close our end,
		// which ends mcp-go's reader and fails the calls still waiting.
		t := time.NewTimer(pc.exitLinger)
		defer t.Stop()
		<-t.C
		p.closeStdoutOnce()
	}()
	return p, nil
}

func (p *proc) closeStdoutOnce() {
	p.closeStdout.Do(func() { _ = p.stdout.Close() })
}

// hasExited reports whether the child is gone, without blocking.
func (p *proc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitStatus describes how the child ended ("exit status 3", "signal:
// killed"); call only after exited is closed.
func (p *proc) exitStatus() string {
	if p.cmd.ProcessState != nil {
		return p.cmd.ProcessState.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exited"
}

// stop ends the server the way the MCP lifecycle asks: close stdin, give it
// grace to exit, then SIGTERM and finally SIGKILL to the whole process group,
// so helpers it started go too.
func (p *proc) stop(grace time.Duration) error {
	_ = p.stdin.Close()
	wait(p.exited, grace)
	// Even a server that exited cleanly may leave helpers in its group.
	signalGroup(p.pgid, syscall.SIGTERM)
	var err error
	if !waitGroup(p.exited, p.pgid, grace) {
		signalGroup(p.pgid, syscall.SIGKILL)
		if !waitGroup(p.exited, p.pgid, 5*time.Second) {
			err = fmt.Errorf("MCP server %q (process group %d) did not exit after SIGKILL", p.name, p.pgid)
		}
	}
	p.closeStdoutOnce()
	_ = p.stderrR.Close()
	wait(p.stderrDone, time.Second)
	return err
}

// wait returns true if ch closes within d.
func wait(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// waitGroup waits until the leader is reaped and no live process remains in
// the group. Nothing signals the end of processes that are not our
// children, so the group is polled.
func waitGroup(exited <-chan struct{}, pgid int, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	leader := exited
	for {
		select {
		case <-leader:
			leader = nil // a nil channel blocks: stop selecting on it
		default:
		}
		if leader == nil && !groupAlive(pgid) {
			return true
		}
		select {
		case <-deadline.C:
			return false
		case <-tick.C:
		case <-leader:
		}
	}
}

// signalGroup signals every process in the group. ESRCH (nobody left) is
// the normal case once the server exited and is not an error.
func signalGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
