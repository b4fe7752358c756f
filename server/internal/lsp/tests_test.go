package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

const goCase = "pipeline/01-scope/tests/go-cli.md"

// A case file gets diagnostics as it is typed, with the line of what is
// wrong, and loses them when it is fixed.
func TestCaseDiagnostics(t *testing.T) {
	s := newSession(t)
	s.Open(goCase)
	s.AwaitDiagnostics(goCase, "analysed", lsptest.None)
	s.Edit(goCase, `- contains "Go"`, `- contain "Go"`)
	ds := s.AwaitDiagnostics(goCase, "the typo", lsptest.HasCode("case-bad-expectation"))
	pos := s.Pos(goCase, `- contain "Go"`, 0)
	if len(ds) != 1 || ds[0].Range.Start.Line != pos.Line || ds[0].Severity != 1 || !strings.Contains(ds[0].Message, `unknown expectation "contain"`) {
		t.Errorf("diagnostics %+v (want one error on line %d)", ds, pos.Line)
	}
	s.Edit(goCase, `- contain "Go"`, `- contains "Go"`)
	s.AwaitDiagnostics(goCase, "the fix", lsptest.None)
}

func TestCaseCompletionAndHover(t *testing.T) {
	s := newSession(t)
	s.Open(goCase)
	s.AwaitDiagnostics(goCase, "analysed", lsptest.None)
	s.Edit(goCase, "- max-words 250\n", "- max-words 250\n- not\n")
	if got := complete(t, s, goCase, s.Pos(goCase, "- not\n", len("- not"))); strings.Join(got, ",") != "not-contains" {
		t.Errorf("expectation completion %v", got)
	}
	s.Edit(goCase, "## Inputs\n", "## Inputs\n- \n")
	if got := complete(t, s, goCase, s.Pos(goCase, "## Inputs\n- \n", len("## Inputs\n- "))); strings.Join(got, ",") != "../../_config/audience.md" {
		t.Errorf("stand-in completion %v (input.md is replaced already)", got)
	}
	h, err := s.Hover(goCase, s.Pos(goCase, "### input.md", 6))
	if err != nil || !strings.Contains(h, "Replaces **input.md** (working input of 01-scope)") || !strings.Contains(h, "command-line tool in Go") {
		t.Errorf("hover on the stand-in: %q %v", h, err)
	}
	h, err = s.Hover(goCase, s.Pos(goCase, "Case: a narrow", 2))
	if err != nil || !strings.Contains(h, "**Case 01-scope/go-cli**") || !strings.Contains(h, "Not run yet") {
		t.Errorf("hover on the title: %q %v", h, err)
	}
}

func TestTestLensAndList(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	var ls []lens
	if err := s.TextDocumentCall("textDocument/codeLens", scope, nil, &ls); err != nil {
		t.Fatal(err)
	}
	// The test lens is under the state lens (a title holds two lenses).
	var found bool
	for _, l := range ls {
		raw, _ := json.Marshal(l.Command.Arguments[0]["actions"])
		var acts []struct {
			Title, Command string
			Arguments      []map[string]any
		}
		_ = json.Unmarshal(raw, &acts)
		for _, a := range acts {
			if a.Title == "▶ Test (2 cases)" {
				found = a.Command == "icm.testRun" && a.Arguments[0]["stage"] == "01-scope"
			}
		}
	}
	if !found {
		t.Errorf("no test lens in %v", ls)
	}
	raw, err := s.ExecuteCommand("icm.testList", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Workspaces []struct {
			Workspace string
			Models    []string
			Cases     []struct {
				ID, Stage, File string
				Line            int
				Expect          []string
			}
		}
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Workspaces) != 1 {
		t.Fatalf("%s %v", raw, err)
	}
	w := list.Workspaces[0]
	if w.Workspace != s.dir || strings.Join(w.Models, ",") != "qwen3.5:9b" || len(w.Cases) != 8 {
		t.Fatalf("list %+v", w)
	}
	c := w.Cases[0]
	if c.ID != "01-scope/go-cli" || c.File != s.dir+"/"+goCase || c.Line != 0 || len(c.Expect) != 8 {
		t.Errorf("first case %+v", c)
	}
}

type jobResult struct {
	Case, Model, Status string
	FirstFailure        string `json:"first_failure"`
	OutputText          string `json:"output_text"`
	Previous            *struct {
		RunID string `json:"run_id"`
		Text  string
	}
	Checks []struct {
		Expect string
		OK     bool
		Line   int
	}
}

type testFinished struct {
	Token   string
	RunID   string `json:"run_id"`
	Passed  bool
	Saved   string
	Results []jobResult
	Message string
}

// A case runs from the editor: events per job, the end with its results,
// and a failure after a pass carries the passing output for a diff.
func TestTestRunFromTheEditor(t *testing.T) {
	s := newSession(t)
	answer := "1. Write programs.\n"
	s.ollama.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"score": 8, "reason": "Verbs first."}))
	s.ollama.On(ollamatest.LastUserContains("command-line tool in Go")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn { return ollamatest.Text(answer) })
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	run := func(token string) testFinished {
		t.Helper()
		raw, err := s.ExecuteCommand("icm.testRun", map[string]any{"workspace": s.dir, "cases": []string{"01-scope/go-cli"}, "token": token})
		if err != nil {
			t.Fatal(err)
		}
		var started struct {
			Started bool
			Token   string
			Cases   int
		}
		if err := json.Unmarshal(raw, &started); err != nil || !started.Started || started.Token != token || started.Cases != 1 {
			t.Fatalf("testRun = %s", raw)
		}
		var f testFinished
		s.AwaitNotification("icm/testFinished", "the run ends", func(m json.RawMessage) bool {
			return json.Unmarshal(m, &f) == nil && f.Token == token
		})
		return f
	}
	f := run("t1")
	if f.Passed || len(f.Results) != 1 || f.Saved == "" {
		t.Fatalf("finished %+v", f)
	}
	r := f.Results[0]
	if r.Status != "failed" || !strings.HasPrefix(r.FirstFailure, "matches `(?m)^4\\. `: ") || r.OutputText != answer || r.Previous != nil {
		t.Errorf("result %+v", r)
	}
	if r.Checks[0].Expect != "matches `(?m)^1\\. `" || !r.Checks[0].OK || r.Checks[0].Line != 17 || r.Checks[5].Expect != `contains "Go"` || r.Checks[5].OK {
		t.Errorf("first check %+v", r.Checks[0])
	}
	var events []string
	for _, raw := range s.Notifications("icm/testEvent") {
		var ev struct{ Token, Kind, Case string }
		if json.Unmarshal(raw, &ev) == nil && ev.Token == "t1" {
			events = append(events, ev.Kind+" "+ev.Case)
		}
	}
	if strings.Join(events, "; ") != "job-start 01-scope/go-cli; job-end 01-scope/go-cli" {
		t.Errorf("events %v", events)
	}
	answer = "1. Write a Go tool.\n2. Test it.\n3. Build it.\n4. Release it.\n"
	if f := run("t2"); !f.Passed {
		t.Fatalf("the good answer failed: %+v", f.Results)
	}
	answer = "1. Write programs.\n"
	f = run("t3")
	if p := f.Results[0].Previous; p == nil || !strings.Contains(p.Text, "Write a Go tool") {
		t.Errorf("the failure after a pass has no previous output: %+v", f.Results[0])
	}
	// The hover on the case's title now says how it did last time.
	s.Open(goCase)
	h, _ := s.Hover(goCase, s.Pos(goCase, "Case: a narrow", 2))
	if !strings.Contains(h, "Last test run ("+f.RunID+"): qwen3.5:9b 0/1 (matches") {
		t.Errorf("title hover after runs: %q", h)
	}
	if _, err := s.ExecuteCommand("icm.testRun", map[string]any{"workspace": s.dir, "cases": []string{"01-scope/nope"}}); err == nil || !strings.Contains(err.Error(), `no case "nope"`) {
		t.Errorf("an unknown case: %v", err)
	}
}
