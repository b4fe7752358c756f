package stagetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/report"
)

func ids(sel []*report.TestCase) string {
	var out []string
	for _, s := range sel {
		out = append(out, s.Case.ID)
	}
	return strings.Join(out, ",")
}

func TestSelect(t *testing.T) {
	ws := openSmall(t)
	rep := check.Run(ws, check.Options{})
	st, _ := ws.Stage("01-idea")
	for _, tc := range []struct {
		name string
		f    Filter
		want string
		err  string
	}{
		{"all", Filter{}, "01-idea/go,01-idea/python", ""},
		{"a stage", Filter{Args: []string{"01-idea"}}, "01-idea/go,01-idea/python", ""},
		{"a stage by its short name", Filter{Args: []string{"idea"}}, "01-idea/go,01-idea/python", ""},
		{"a case", Filter{Args: []string{"01-idea/python"}}, "01-idea/python", ""},
		{"a case file", Filter{Args: []string{"pipeline/01-idea/tests/go.md"}, Dir: ws.Root}, "01-idea/go", ""},
		{"a case folder", Filter{Args: []string{filepath.Join(st.Dir, "tests", "python")}}, "01-idea/python", ""},
		{"include a glob", Filter{Include: []string{"p*"}}, "01-idea/python", ""},
		{"include an id glob", Filter{Include: []string{"01-*/go"}}, "01-idea/go", ""},
		{"exclude", Filter{Exclude: []string{"go"}}, "01-idea/python", ""},
		{"exclude the stage", Filter{Exclude: []string{"01-idea"}}, "", ""},
		{"an unknown case", Filter{Args: []string{"01-idea/rust"}}, "", `stage 01-idea has no case "rust"; its cases: 01-idea/go, 01-idea/python`},
		{"nothing by that name", Filter{Args: []string{"zzz"}}, "", `"zzz" names no stage, case or case file`},
		{"a bad glob", Filter{Include: []string{"[x"}}, "", "not a valid glob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := Select(ws, rep, tc.f)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || ids(sel) != tc.want {
				t.Errorf("selected %q (%v), want %q", ids(sel), err, tc.want)
			}
		})
	}
}

// A case with errors is reported, never run; a stage input the case does
// not replace and the workspace lacks is an error before any model call.
func TestBadCasesAreErrorsWithoutModelCalls(t *testing.T) {
	srv, client := scripted(t)
	ws := openSmall(t)
	st, _ := ws.Stage("01-idea")
	os.WriteFile(filepath.Join(st.Dir, "tests", "bad.md"), []byte("# Case: bad\n\n## Expect\n- contain \"x\"\n"), 0o644)
	os.Remove(filepath.Join(st.Dir, "input.md"))
	os.WriteFile(filepath.Join(st.Dir, "tests", "bare.md"), []byte("# Case: bare\n\n## Expect\n- non-empty\n"), 0o644)
	rep := runCases(t, ws, client, Options{}, "01-idea/bad", "01-idea/bare")
	bad := result(t, rep, "01-idea/bad", "alpha", 1)
	if bad.Status != report.TestError || !strings.Contains(bad.Error, `unknown expectation "contain"`) {
		t.Errorf("bad case: %s %s", bad.Status, bad.Error)
	}
	bare := result(t, rep, "01-idea/bare", "alpha", 1)
	if bare.Status != report.TestError || !strings.Contains(bare.Error, "01-idea reads input.md, which the workspace does not have") || !strings.Contains(bare.Hint, "- input.md <- FILE") {
		t.Errorf("bare case: %s %q %q", bare.Status, bare.Error, bare.Hint)
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("%d model calls for cases that cannot run", n)
	}
	if rep.Passed {
		t.Error("a run with errors passed")
	}
}

// Cancelling stops the run: what did not run is marked cancelled.
func TestCancelledRun(t *testing.T) {
	_, client := scripted(t)
	ws := openSmall(t)
	sel, _ := Select(ws, check.Run(ws, check.Options{}), Filter{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := New(ws, Backend{Client: client, Permit: allowAll}, Options{Repeat: 2}).Run(ctx, sel)
	if rep.Complete || rep.Passed || rep.Counts[report.TestCancelled] != 4 {
		t.Errorf("complete %v passed %v counts %v", rep.Complete, rep.Passed, rep.Counts)
	}
}

func TestOptionsWithConfig(t *testing.T) {
	ws := openSmall(t)
	cfg := ws.Config
	cfg.Test.Models, cfg.Test.Repeat, cfg.Test.Seed, cfg.Test.Judge = []string{"a", "b"}, 3, 9, "judge"
	o := Options{}.WithConfig(cfg)
	if strings.Join(o.Models, ",") != "a,b" || o.Repeat != 3 || o.Seed != 9 || o.Judge != "judge" || o.Parallel != 1 {
		t.Errorf("from [test]: %+v", o)
	}
	o = Options{Models: []string{"x"}, Repeat: 1, Seed: 2, Parallel: 5, Judge: "j"}.WithConfig(cfg)
	if strings.Join(o.Models, ",") != "x" || o.Repeat != 1 || o.Seed != 2 || o.Judge != "j" || o.Parallel != 5 {
		t.Errorf("flags win: %+v", o)
	}
	cfg.Test = config.Test{}
	cfg.Model.Servers = []config.ModelServer{{URL: "http://a", Slots: 2}, {URL: "http://b"}}
	if o := (Options{}).WithConfig(cfg); o.Parallel != 3 || o.Repeat != 1 || o.Seed != 1 {
		t.Errorf("defaults: %+v", o)
	}
}
