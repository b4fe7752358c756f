//go:build linux

package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/reap"
)

func TestCallDeadline(t *testing.T) {
	f := newFixture(t)
	opts := testOptions()
	opts.CallTimeout = 300 * time.Millisecond
	s := openSession(t, Registry{"fx": f.server("fx")}, map[string][]string{"fx": nil}, opts)

	res, err := s.Call(context.Background(), "fx_hang", nil)
	var se *ServerError
	if !errors.As(err, &se) || se.Kind != FailTimeout {
		t.Fatalf("error = %v, want a timeout", err)
	}
	for _, w := range []string{`MCP server "fx"`, "hang", "300ms", "tool_timeout"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if !res.IsError || res.Text != err.Error() || res.Server != "fx" || res.Tool != "hang" {
		t.Errorf("result = %+v, want the error as tool-error text", res)
	}
	// The server is still fine for the next call. That call may take
	// the time it takes: 300 ms is a bound a loaded machine can miss for
	// a call that does answer.
	s.opts.CallTimeout = testOptions().CallTimeout
	res, err = s.Call(context.Background(), "fx_echo", map[string]any{"text": "still here"})
	if err != nil || res.Text != "still here" {
		t.Errorf("call after a timeout: %+v, %v", res, err)
	}
}

func TestCallerCancellation(t *testing.T) {
	f := newFixture(t)
	s := openSession(t, Registry{"fx": f.server("fx")}, map[string][]string{"fx": {"hang"}}, testOptions())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "fx_hang", nil)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestServerDiesMidCall(t *testing.T) {
	tests := []struct {
		name string
		// before runs ahead of the crash; spawn leaves a grandchild holding
		// the server's stdout, so EOF alone cannot reveal the death.
		before string
	}{
		{"plain", ""},
		{"grandchild holds stdout", "fx_spawn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			// A long deadline: only noticing the exit can end the call
			// with FailExited rather than FailTimeout.
			s := openSession(t, Registry{"fx": f.server("fx")}, map[string][]string{"fx": nil}, testOptions())
			if tc.before != "" {
				if _, err := s.Call(context.Background(), tc.before, nil); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.Call(context.Background(), "fx_crash", map[string]any{"code": 3})
			var se *ServerError
			if !errors.As(err, &se) || se.Kind != FailExited {
				t.Fatalf("error = %v, want the server's exit", err)
			}
			for _, w := range []string{`"fx"`, "during crash", "exit status 3", "crashing on purpose"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			// Later calls fail at once with the same cause.
			_, err = s.Call(context.Background(), "fx_echo", map[string]any{"text": "x"})
			if !errors.As(err, &se) || se.Kind != FailExited || !strings.Contains(err.Error(), "exit status 3") {
				t.Errorf("later call: %v, want the earlier exit", err)
			}
		})
	}
}

func TestServerExitsAtStartup(t *testing.T) {
	f := newFixture(t)
	reg := Registry{"fx": f.server("fx", "-exit-at-start", "4")}
	// The start-up deadline is long: the exit must be noticed by itself.
	_, err := Open(context.Background(), reg, map[string][]string{"fx": nil}, testOptions())
	var se *ServerError
	if !errors.As(err, &se) || se.Kind != FailExited {
		t.Fatalf("error = %v, want the server's exit", err)
	}
	for _, w := range []string{`"fx"`, "during start-up", "exit status 4", "refusing to start"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestStderrFloodDoesNotBlock(t *testing.T) {
	f := newFixture(t)
	opts := testOptions()
	opts.StderrBytes = 32 * 1024
	s := openSession(t, Registry{"fx": f.server("fx")}, map[string][]string{"fx": nil}, opts)
	// 8 MiB is far beyond any pipe buffer: an undrained stderr would block
	// the server and the call would never return.
	res, err := s.Call(context.Background(), "fx_flood", map[string]any{"mb": 8})
	if err != nil || res.Text != "flooded 8 MiB" {
		t.Fatalf("flood: %+v, %v", res, err)
	}
	c := s.conns["fx"]
	// stderr is drained beside the answer, not before it: wait for the
	// drain to reach the last line.
	timeout := time.After(time.Minute)
	for c.proc.stderr.Total() < 8<<20+int64(len("fixture: flood finished\n")) {
		select {
		case <-c.proc.stderr.Grew():
		case <-timeout:
			t.Fatalf("stderr drain stopped at %d bytes", c.proc.stderr.Total())
		}
	}
	tail := s.Stderr("fx")
	if !strings.HasSuffix(tail, "fixture: flood finished") {
		t.Errorf("stderr tail ends %q, want the last line", tail[max(0, len(tail)-80):])
	}
	if kept := len(c.proc.stderr.Bytes()); kept > opts.StderrBytes {
		t.Errorf("ring keeps %d bytes, cap %d", kept, opts.StderrBytes)
	}
	if res, err := s.Call(context.Background(), "fx_echo", map[string]any{"text": "ok"}); err != nil || res.Text != "ok" {
		t.Errorf("call after flood: %+v, %v", res, err)
	}
}

func TestCloseLeavesNoProcesses(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		// ignoreTerm makes the grandchild survive SIGTERM.
		ignoreTerm bool
	}{
		{"polite server, polite grandchild", nil, false},
		{"grandchild ignores SIGTERM", nil, true},
		{"server ignores stdin EOF and SIGTERM", []string{"-stubborn"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			opts := testOptions()
			opts.ShutdownGrace = 200 * time.Millisecond
			s, grandchild := spawnGrandchild(t, f, opts, tc.flags, map[string]any{"ignore_term": tc.ignoreTerm})
			if len(f.pids()) != 2 {
				t.Errorf("%d pid files, want server and grandchild", len(f.pids()))
			}
			// The server leads its own process group and the grandchild is in it.
			leader := s.conns["fx"].proc.cmd.Process.Pid
			for _, pid := range []int{leader, grandchild} {
				if p, ok := reap.Stat(pid); !ok || p.Group != leader {
					t.Errorf("process %d is in group %d, want %d", pid, p.Group, leader)
				}
			}
			if leader == syscall.Getpgrp() {
				t.Errorf("the server shares the test's process group")
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for _, pid := range f.pids() {
				if alive(pid) {
					t.Errorf("process %d survived Close", pid)
				}
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	parent := map[string]string{"PATH": "/bin", "HOME": "/home/u", "AWS_SECRET_ACCESS_KEY": "x", "LANG": "C", "OLLAMA_API_KEY": "y"}
	lookup := func(k string) (string, bool) { v, ok := parent[k]; return v, ok }
	got := strings.Join(childEnv(lookup, map[string]string{"TOKEN": "given", "PATH": "/opt/bin"}), " ")
	if want := "HOME=/home/u LANG=C PATH=/opt/bin TOKEN=given"; got != want {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

// A helper that calls setsid leaves the server's process group, so killing
// the group does not reach it; closing the session must end it all the
// same (and its own children), whatever the server does.
func TestCloseEndsChildrenThatLeftTheGroup(t *testing.T) {
	for _, stubborn := range []bool{false, true} {
		t.Run(map[bool]string{false: "polite server", true: "stubborn server"}[stubborn], func(t *testing.T) {
			f := newFixture(t)
			opts := testOptions()
			opts.ShutdownGrace = 200 * time.Millisecond
			var flags []string
			if stubborn {
				flags = []string{"-stubborn"}
			}
			s, grandchild := spawnGrandchild(t, f, opts, flags, map[string]any{"setsid": true, "ignore_term": true})
			leader := s.conns["fx"].proc.cmd.Process.Pid
			if p, ok := reap.Stat(grandchild); !ok || p.Group == leader {
				t.Fatalf("the grandchild is in group %d, want a group of its own (setsid)", p.Group)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for _, pid := range f.pids() {
				if alive(pid) {
					t.Errorf("process %d survived Close", pid)
				}
			}
		})
	}
}

// spawnGrandchild opens a session on the fixture with flags and has it
// spawn a grandchild with args, returning the session and the
// grandchild's pid.
func spawnGrandchild(t *testing.T, f *fixture, opts Options, flags []string, args map[string]any) (*Toolset, int) {
	t.Helper()
	s, err := Open(context.Background(), Registry{"fx": f.server("fx", flags...)}, map[string][]string{"fx": {"spawn"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(context.Background(), "fx_spawn", args)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(res.Text)
	if err != nil || !alive(grandchild) {
		s.Close()
		t.Fatalf("spawn answered %q; grandchild not running", res.Text)
	}
	return s, grandchild
}
