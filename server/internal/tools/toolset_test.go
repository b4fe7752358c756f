//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openSession(t *testing.T, reg Registry, allow map[string][]string, opts Options) *Toolset {
	t.Helper()
	s, err := Open(context.Background(), reg, allow, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestSessionCalls(t *testing.T) {
	f := newFixture(t)
	reg := Registry{"fx": f.server("fx")}
	opts := testOptions()
	opts.MaxResultBytes = 4096
	s := openSession(t, reg, map[string][]string{"fx": {"*"}}, opts)

	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		wantError bool
		want      []string // substrings of the text
		wantCut   bool
	}{
		{"echo", "fx_echo", map[string]any{"text": "hello"}, false, []string{"hello"}, false},
		{"add numbers", "fx_add", map[string]any{"a": 2, "b": 3.5}, false, []string{"5.5"}, false},
		{"wrong type", "fx_add", map[string]any{"a": "two", "b": 3}, true, []string{`argument "a"`, "want number", "the tool was not called", "a (number, required)"}, false},
		{"missing argument", "fx_echo", map[string]any{}, true, []string{"missing property", "text"}, false},
		{"nil arguments", "fx_echo", nil, true, []string{"missing property"}, false},
		{"unknown tool", "fx_nope", nil, true, []string{"unknown tool fx_nope; available:", "fx_echo", "fx_add"}, false},
		{"tool error", "fx_fail", map[string]any{"message": "no such page"}, true, []string{"no such page"}, false},
		{"JSON-RPC error", "fx_broken", nil, true, []string{"fx_broken failed", "handler is broken"}, false},
		{"image described", "fx_image", nil, false, []string{"a caption", "[image: image/png,"}, false},
		{"ref kept and checked ok", "fx_lookup", map[string]any{"colour": "red"}, false, []string{"found red"}, false},
		{"ref kept and checked bad", "fx_lookup", map[string]any{"colour": "purple"}, true, []string{`argument "colour"`, "red"}, false},
		{"extra property refused", "fx_lookup", map[string]any{"colour": "red", "shade": 1}, true, []string{"shade"}, false},
		{"big result cut", "fx_big", map[string]any{"kb": 64}, false, []string{"bytes cut"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Call(context.Background(), tc.tool, tc.args)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			t.Logf("%s -> %q", tc.tool, cutRunes(res.Text, 400))
			if res.IsError != tc.wantError {
				t.Errorf("IsError = %v, want %v (text %q)", res.IsError, tc.wantError, res.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text %q does not contain %q", res.Text, w)
				}
			}
			if res.Truncated != tc.wantCut {
				t.Errorf("Truncated = %v, want %v", res.Truncated, tc.wantCut)
			}
			if res.Size < len(res.Text) || (tc.wantCut && res.Size <= opts.MaxResultBytes) {
				t.Errorf("Size = %d for text of %d bytes", res.Size, len(res.Text))
			}
			if len(res.Text) > opts.MaxResultBytes {
				t.Errorf("text of %d bytes exceeds MaxResultBytes %d", len(res.Text), opts.MaxResultBytes)
			}
			if res.Duration <= 0 {
				t.Errorf("Duration = %v", res.Duration)
			}
		})
	}
}

func TestSessionToolsFilteredAndNamed(t *testing.T) {
	f := newFixture(t)
	reg := Registry{"web.search": f.server("web.search")}
	s := openSession(t, reg, map[string][]string{"web.search": {"echo", "add", "echo"}}, testOptions())

	tools := s.Tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if !json.Valid(tl.Parameters) {
			t.Errorf("%s: parameters are not JSON: %s", tl.Name, tl.Parameters)
		}
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
	}
	if got, want := strings.Join(names, ","), "web_search_add,web_search_echo"; got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}
	info, ok := s.Lookup("web_search_echo")
	if !ok || info.Server != "web.search" || info.Name != "echo" {
		t.Errorf("Lookup = %+v, %v", info, ok)
	}
	res, err := s.Call(context.Background(), "web_search_slow", map[string]any{"ms": 1})
	if err != nil || !res.IsError || !strings.Contains(res.Text, "unknown tool") {
		t.Errorf("a tool the stage did not allow was callable: %+v, %v", res, err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name  string
		allow map[string][]string
		want  []string
	}{
		{"missing tool", map[string][]string{"fx": {"echo", "search"}}, []string{`"fx"`, `"search"`, "it offers:", "echo", "add"}},
		{"unknown server", map[string][]string{"nosuch": nil}, []string{`"nosuch"`, "not configured", "configured: fx"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			reg := Registry{"fx": f.server("fx")}
			s, err := Open(context.Background(), reg, tc.allow, testOptions())
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestOpenStartsOnlyNamedServers(t *testing.T) {
	f := newFixture(t)
	reg := Registry{"a": f.server("a"), "b": f.server("b"), "c": f.server("c")}
	s := openSession(t, reg, map[string][]string{"a": {"echo"}, "c": {"add"}}, testOptions())
	if n := len(f.pids()); n != 2 {
		t.Errorf("%d servers started, want 2", n)
	}
	if got := len(s.Tools()); got != 2 {
		t.Errorf("%d tools, want 2", got)
	}
	empty := openSession(t, reg, nil, testOptions())
	if len(empty.Tools()) != 0 || len(f.pids()) != 2 {
		t.Errorf("a stage without tools started servers or offered tools")
	}
}

func TestSessionStartsServersInParallel(t *testing.T) {
	f := newFixture(t)
	// Each server waits, before it answers initialize, until all three
	// have started: one at a time, the first would never get past it.
	reg := Registry{}
	allow := map[string][]string{}
	for _, n := range []string{"a", "b", "c"} {
		reg[n] = f.server(n, "-await", "3")
		allow[n] = []string{"echo"}
	}
	s := openSession(t, reg, allow, testOptions())
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"a_echo", "b_echo", "c_echo"}[i%3]
			text := fmt.Sprint(i)
			res, err := s.Call(context.Background(), name, map[string]any{"text": text})
			if err != nil || res.Text != text {
				t.Errorf("concurrent call %d: %+v, %v", i, res, err)
			}
		}()
	}
	wg.Wait()
}

func TestChildEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("ICM_TEST_SECRET", "hunter2")
	t.Setenv("LANG", "C.UTF-8")
	f := newFixture(t)
	srv := f.server("fx")
	srv.Env = map[string]string{"GIVEN": "yes"}
	s := openSession(t, Registry{"fx": srv}, map[string][]string{"fx": {"env"}}, testOptions())

	tests := []struct{ name, want string }{
		{"ICM_TEST_SECRET", "(unset)"},
		{"GIVEN", "yes"},
		{"PATH", os.Getenv("PATH")},
		{"LANG", "C.UTF-8"},
	}
	for _, tc := range tests {
		res, err := s.Call(context.Background(), "fx_env", map[string]any{"name": tc.name})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != tc.want {
			t.Errorf("%s = %q in the child, want %q", tc.name, res.Text, tc.want)
		}
	}
}

func TestStdioServerWorkingDirectory(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	opts := testOptions()
	opts.Dir = dir
	// A relative command resolves against the working directory.
	if err := os.Symlink(fixtureBin, filepath.Join(dir, "fixture")); err != nil {
		t.Fatal(err)
	}
	srv := f.server("fx")
	srv.Command = "./fixture"
	s := openSession(t, Registry{"fx": srv}, map[string][]string{"fx": {"echo"}}, opts)
	if _, err := s.Call(context.Background(), "fx_echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
}

func TestCommandNotFound(t *testing.T) {
	reg := Registry{"gone": {Name: "gone", Transport: TransportStdio, Command: "/nonexistent/icm-mcp", Source: "config.toml", Line: 7}}
	_, err := Open(context.Background(), reg, map[string][]string{"gone": nil}, testOptions())
	var se *ServerError
	if !errors.As(err, &se) || se.Kind != FailStart {
		t.Fatalf("error = %v, want a start failure", err)
	}
	for _, w := range []string{`"gone"`, "/nonexistent/icm-mcp", "config.toml:7"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}
