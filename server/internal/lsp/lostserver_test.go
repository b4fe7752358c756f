package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// lostServer is what a run's end says of a model server that did not
// answer: its message, hint and fixes.
type lostServer struct {
	RunID, Message string
	Error          *struct {
		Kind, Hint string
		Actions    []struct{ ID string }
	}
}

func (l lostServer) ids() string {
	var ids []string
	for _, a := range l.Error.Actions {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, " ")
}

// lastRunFinished is the newest icm/runFinished, read whole.
func lastRunFinished(t *testing.T, s *session) lostServer {
	t.Helper()
	all := s.Notifications("icm/runFinished")
	var l lostServer
	if err := json.Unmarshal(all[len(all)-1], &l); err != nil || l.Error == nil {
		t.Fatalf("runFinished %s: %v", all[len(all)-1], err)
	}
	return l
}

// withPath makes the server see path as the PATH: an ollama program is
// installed there or not.
func withPath(path string) func(*lsptest.Config) {
	return func(c *lsptest.Config) {
		c.Options.Getenv = func(k string) string {
			if k == "PATH" {
				return path
			}
			return os.Getenv(k)
		}
	}
}

// TestALostModelServerReadsTheSameBeforeAndDuringARun: issue 34 (9).
// Before a run (no server answers) and during one (the server stops
// answering), the failure offers the same fixes, chosen by whether
// Ollama is installed here (Start only where it is: mid-run it used to
// offer Start Ollama with no Ollama installed), and names the server's
// address once (the hint repeated it). A run refused before it did
// anything shows no progress, so no "Running ... starting" comes after
// its failure; nor does a run that had nothing to run.
func TestALostModelServerReadsTheSameBeforeAndDuringARun(t *testing.T) {
	for _, installed := range []bool{false, true} {
		name := map[bool]string{false: "Ollama not installed", true: "Ollama installed"}[installed]
		t.Run(name, func(t *testing.T) {
			bin := t.TempDir()
			if installed {
				if err := os.WriteFile(filepath.Join(bin, "ollama"), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			down := closedport.URL(t)
			s := newSession(t, withPath(bin), func(c *lsptest.Config) { c.InitOptions = map[string]any{"ollamaHost": down} })
			runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
			before := lastRunFinished(t, s)
			for _, raw := range s.Notifications("window/workDoneProgress/create") {
				if strings.Contains(string(raw), before.RunID) {
					t.Errorf("a refused run began a progress: %s", raw)
				}
			}
			// Checking the server (the walkthrough's step) says the same.
			raw, err := s.ExecuteCommand("icm.modelStatus", map[string]any{"workspace": s.dir})
			var check struct {
				Reachable bool
				Problem   *struct {
					Message string
					Data    struct{ Actions []struct{ ID string } }
				}
			}
			if err != nil || json.Unmarshal(raw, &check) != nil || check.Reachable || check.Problem == nil {
				t.Fatalf("icm.modelStatus = %s, %v", raw, err)
			}
			var checked []string
			for _, a := range check.Problem.Data.Actions {
				checked = append(checked, a.ID)
			}
			if strings.Join(checked, " ") != before.ids() || !strings.Contains(check.Problem.Message, map[bool]string{false: "not installed", true: "installed here"}[installed]) {
				t.Errorf("checking the server: %q, fixes %q; a run: %q", check.Problem.Message, checked, before.ids())
			}

			s2 := newSession(t, withPath(bin))
			var calls atomic.Int32
			lost := make(chan struct{})
			s2.ollama.Default(ollamatest.Text("## A module\n\nSome prose."))
			s2.ollama.On(ollamatest.LastUserContains("## Two")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn {
				if calls.Add(1) == 1 {
					close(lost)
				}
				return ollamatest.Hang()
			})
			// One item at a time: the first is answered, the server stops
			// while the second waits.
			cfg, err := os.ReadFile(filepath.Join(s2.dir, "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, s2.dir, "config.toml", strings.Replace(string(cfg), "parallel = 2", "parallel = 1", 1))
			upstreamApproved(t, s2, "# Outline\n\n## One\n- a\n\n## Two\n- b\n")
			go func() {
				<-lost
				_ = s2.ollama.Close()
			}()
			runAndWait(t, s2, "icm.runStage", map[string]any{"workspace": s2.dir, "stage": "04-draft", "force": true})
			during := lastRunFinished(t, s2)
			if !strings.Contains(during.Message, "stopped answering during 04-draft") {
				t.Fatalf("the run during which the server stopped: %q", during.Message)
			}

			for what, l := range map[string]lostServer{"before a run": before, "during a run": during} {
				url := map[string]string{"before a run": down, "during a run": s2.ollama.URL()}[what]
				if n := strings.Count(l.Message+" "+l.Error.Hint, url); n != 1 {
					t.Errorf("%s the address is told %d times: %q — %q", what, n, l.Message, l.Error.Hint)
				}
				says := map[bool]string{false: "Ollama is not installed on this machine", true: "Ollama is installed here but not running"}[installed]
				if l.Error.Kind != "model-unreachable" || !strings.Contains(l.Message, says) {
					t.Errorf("%s: %q (%s), want it to say %q", what, l.Message, l.Error.Kind, says)
				}
				if strings.Contains(l.ids(), "start-server") != installed {
					t.Errorf("%s the fixes are %q with Ollama installed: %v", what, l.ids(), installed)
				}
			}
			if before.ids() != during.ids() {
				t.Errorf("the fixes differ: %q before a run, %q during one", before.ids(), during.ids())
			}
		})
	}
}

// TestNothingToRunShowsNoProgress: a run that finds nothing to run (the
// next stage awaits review) says so and begins no progress.
func TestNothingToRunShowsNoProgress(t *testing.T) {
	s := newSession(t)
	writeFile(t, s.dir, "pipeline/01-scope/output/objectives.md", "1. Install Ollama.\n")
	f := runAndWait(t, s, "icm.runNext", map[string]any{"workspace": s.dir})
	if !strings.Contains(f.Message, "awaiting review") && !strings.Contains(f.Message, "approve") {
		t.Logf("nothing ran: %q", f.Message)
	}
	for _, raw := range s.Notifications("window/workDoneProgress/create") {
		if strings.Contains(string(raw), f.RunID) {
			t.Errorf("a run with nothing to run began a progress: %s", raw)
		}
	}
}
