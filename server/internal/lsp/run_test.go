package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

type finished struct {
	Workspace, Stage, RunID, Message string
	OK, Cancelled, VerifyFailed      bool
	Outputs                          []string
}

func runFinished(t *testing.T, raw json.RawMessage) finished {
	t.Helper()
	var f finished
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// progressValues returns the $/progress values sent under a token.
func progressValues(s *session, token string) []map[string]any {
	var out []map[string]any
	for _, raw := range s.Notifications("$/progress") {
		var p struct {
			Token any            `json:"token"`
			Value map[string]any `json:"value"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Token == token {
			out = append(out, p.Value)
		}
	}
	return out
}

func TestRunStageFromTheEditor(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama on a laptop.\n2. Pull a small model.\n3. Ask it a question from the terminal.\n"))
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)

	raw, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		Started bool
		RunID   string
	}
	if err := json.Unmarshal(raw, &started); err != nil || !started.Started || started.RunID == "" {
		t.Fatalf("runStage = %s, %v", raw, err)
	}
	f := runFinished(t, s.AwaitNotification("icm/runFinished", "the stage ends", nil))
	out := filepath.Join(s.dir, "pipeline/01-scope/output/objectives.md")
	if !f.OK || f.Cancelled || f.Stage != "01-scope" || f.RunID != started.RunID || len(f.Outputs) != 1 || f.Outputs[0] != out {
		t.Errorf("runFinished = %+v", f)
	}
	text, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(text), "Pull a small model") {
		t.Errorf("output %s: %q, %v", out, text, err)
	}

	token := "icm-run-" + started.RunID
	s.Await("the progress ends", func() bool {
		v := progressValues(s, token)
		return len(v) > 0 && v[len(v)-1]["kind"] == "end"
	})
	vals := progressValues(s, token)
	if vals[0]["kind"] != "begin" || vals[0]["cancellable"] != true {
		t.Errorf("first progress = %v", vals[0])
	}
	// The progress begins with the stage's first words: a run refused
	// before any work begins none.
	if m, _ := vals[0]["message"].(string); !regexp.MustCompile(`^~\d+ tokens -> qwen3\.5:9b$`).MatchString(m) {
		t.Errorf("the progress begins with %q", m)
	}
	created := false
	for _, raw := range s.Notifications("window/workDoneProgress/create") {
		created = created || strings.Contains(string(raw), token)
	}
	if !created {
		t.Error("no window/workDoneProgress/create for the run's token")
	}

	// The state follows: awaiting review, then approved through the command.
	s.AwaitNotification("icm/statusChanged", "awaiting review", stageIs("01-scope", "awaiting-review"))
	// ...and the client is told to fetch lenses again, which now offer Approve.
	s.AwaitNotification("workspace/codeLens/refresh", "a lens refresh", nil)
	var ls []lens
	if err := s.TextDocumentCall("textDocument/codeLens", scope, nil, &ls); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(titles(ls), " | "); !regexp.MustCompile(`^✓ Approve \| awaiting review · ~\d+ tokens$`).MatchString(got) {
		t.Errorf("lenses after the run = %q", got)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	s.AwaitNotification("icm/statusChanged", "approved", stageIs("01-scope", "approved"))
	// The next stage's input exists now: its "not produced yet" note goes.
	s.Open(research)
	s.AwaitDiagnostics(research, "objectives exist", func(ds []lsptest.Diagnostic) bool {
		return !lsptest.HasCode("input-not-yet-produced")(ds)
	})
}

func TestRunForEachReportsItems(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("## A module\n\nSome prose.\n"))
	upstreamApproved(t, s, "## One\n- a\n\n## Two\n- b\n")
	raw, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "04-draft", "force": true})
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ RunID string }
	_ = json.Unmarshal(raw, &started)
	f := runFinished(t, s.AwaitNotification("icm/runFinished", "drafting ends", nil))
	if !f.OK {
		t.Fatalf("runFinished = %+v", f)
	}
	s.Await("the progress ends", func() bool {
		v := progressValues(s, "icm-run-"+started.RunID)
		return len(v) > 0 && v[len(v)-1]["kind"] == "end"
	})
	// Progress counts the items finished (they run two at a time and end
	// in any order), so it only grows, up to 2 of 2.
	var items []string
	last := -1.0
	for _, v := range progressValues(s, "icm-run-"+started.RunID) {
		if m, _ := v["message"].(string); strings.Contains(m, "items done") && v["percentage"] != nil {
			items = append(items, m)
			pct := v["percentage"].(float64)
			if pct < last {
				t.Errorf("progress went back from %v%% to %v%%: %q", last, pct, m)
			}
			last = pct
		}
	}
	// Item 1 goes alone first, by its title; item 2 runs beside it or
	// after it, whichever ends first (by its title when alone).
	all := strings.Join(items, "\n")
	second := strings.Contains(all, "running item 2: Two") || strings.Contains(all, "running items 1 and 2")
	if len(items) < 2 || !strings.Contains(all, "running item 1: One") || !second || !strings.HasPrefix(items[len(items)-1], "2 of 2 items done") || last != 100 {
		t.Errorf("item reports = %q", items)
	}
}

func TestCancelRun(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Hang())
	raw, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ RunID string }
	_ = json.Unmarshal(raw, &started)
	s.AwaitNotification("$/progress", "the run reports", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "01-scope")
	})
	// A second run in the same workspace is refused while the first goes on.
	_, err = s.ExecuteCommand("icm.runAll", map[string]any{"workspace": s.dir})
	if err == nil || !strings.Contains(err.Error(), "already going") {
		t.Errorf("second run: err = %v", err)
	}
	// In the editor's words: the workspace by its name, not its path,
	// and no process of a command line (issue 34).
	if re, _ := lsptest.AsReplyError(err); strings.Contains(re.Message, s.dir) || strings.Contains(string(re.Data), "process") {
		t.Errorf("second run: %s %s", re.Message, re.Data)
	}
	raw, err = s.ExecuteCommand("icm.cancel", map[string]any{"workspace": s.dir})
	if err != nil || !strings.Contains(string(raw), `"cancelled":true`) {
		t.Fatalf("cancel = %s, %v", raw, err)
	}
	f := runFinished(t, s.AwaitNotification("icm/runFinished", "the cancelled run ends", nil))
	if f.OK || !f.Cancelled {
		t.Errorf("runFinished = %+v", f)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "pipeline/01-scope/output/objectives.md")); err == nil {
		t.Error("a cancelled run wrote its output")
	}
}

func TestProgressCancelButtonStopsTheRun(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Hang())
	raw, err := s.ExecuteCommand("icm.runNext", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ RunID string }
	_ = json.Unmarshal(raw, &started)
	token := "icm-run-" + started.RunID
	s.Await("progress begins", func() bool { return len(progressValues(s, token)) > 0 })
	s.Notify("window/workDoneProgress/cancel", map[string]any{"token": token})
	f := runFinished(t, s.AwaitNotification("icm/runFinished", "the run ends", nil))
	if !f.Cancelled {
		t.Errorf("runFinished = %+v", f)
	}
}

func TestApproveRefusesFailedVerify(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("TODO write the objectives\n"))
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	f := runFinished(t, s.AwaitNotification("icm/runFinished", "the stage ends", nil))
	if !f.VerifyFailed {
		t.Errorf("runFinished = %+v, want verifyFailed", f)
	}
	_, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	re, ok := lsptest.AsReplyError(err)
	var data struct {
		Kind    string
		Actions []struct{ ID, Stage string }
	}
	if !ok || re.Code != -32803 || json.Unmarshal(re.Data, &data) != nil || data.Kind != "verify-failed" {
		t.Fatalf("approve = %v (data %s), want a verify-failed error", err, re.Data)
	}
	if n := len(data.Actions); n == 0 || data.Actions[n-1].ID != "approve-anyway" || data.Actions[n-1].Stage != "01-scope" {
		t.Errorf("actions = %+v, want approve-anyway last", data.Actions)
	}
	if strings.Contains(re.Message, "--force") || strings.Contains(string(re.Data), "--force") {
		t.Errorf("an editor error names a CLI flag: %s %s", re.Message, re.Data)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "force": true, "note": "the objectives are fine"}); err != nil {
		t.Errorf("forced approve: %v", err)
	}
	raw, err := s.ExecuteCommand("icm.outputs", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil || !strings.Contains(string(raw), `"exists":true`) {
		t.Errorf("outputs = %s, %v", raw, err)
	}
}

// stageIs matches an icm/statusChanged whose stage has the status.
func stageIs(stage, status string) func(json.RawMessage) bool {
	return func(raw json.RawMessage) bool {
		var ws struct {
			Stages []struct{ Name, Status string }
		}
		if json.Unmarshal(raw, &ws) != nil {
			return false
		}
		for _, s := range ws.Stages {
			if s.Name == stage {
				return s.Status == status
			}
		}
		return false
	}
}

// TestRunFailureCarriesItsFixes: a run that cannot reach the model server
// ends with a runFinished whose error says so by kind, with the hint and
// the fixes, so the editor offers buttons instead of a raw message.
func TestRunFailureCarriesItsFixes(t *testing.T) {
	down := closedport.URL(t)
	// Ollama is installed here (a stand-in on the PATH), only not running.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "ollama"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, func(c *lsptest.Config) {
		c.InitOptions = map[string]any{"ollamaHost": down}
		c.Options.Getenv = func(k string) string {
			if k == "PATH" {
				return bin
			}
			return os.Getenv(k)
		}
	})
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	raw := s.AwaitNotification("icm/runFinished", "the run ends", nil)
	var f struct {
		OK      bool
		Stage   string
		Message string
		Error   *struct {
			Kind, Hint string
			Actions    []struct{ ID, Command, URL, Setting string }
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	// The message names the address; the hint says what to do.
	if f.OK || f.Error == nil || f.Error.Kind != "model-unreachable" || !strings.Contains(f.Message, down) || strings.Contains(f.Error.Hint, down) {
		t.Fatalf("runFinished = %s", raw)
	}
	if strings.HasPrefix(f.Message, "failed:") || !strings.Contains(f.Message, "no model server at") {
		t.Errorf("message %q", f.Message)
	}
	if len(f.Error.Actions) != 3 || f.Error.Actions[0].ID != "start-server" || f.Error.Actions[0].Command != "ollama serve" ||
		f.Error.Actions[1].ID != "set-server" || f.Error.Actions[1].Setting != "ollamaHost" || f.Error.Actions[2].ID != "try-demo" {
		t.Errorf("actions = %+v", f.Error.Actions)
	}
	if !strings.Contains(f.Message, "Ollama is installed here but not running") {
		t.Errorf("message %q does not say Ollama is installed and not running", f.Message)
	}
}

// TestRunFailureWithoutOllamaOffersInstallAndDemo: where no ollama
// program is installed, the failure says so and its fixes are installing
// Ollama and the demo, not starting a server that is not there. The
// address here is one the person set (not Ollama's own 11434), so setting
// it comes first: what listens there is theirs, most likely stopped.
func TestRunFailureWithoutOllamaOffersInstallAndDemo(t *testing.T) {
	down := closedport.URL(t)
	empty := t.TempDir()
	s := newSession(t, func(c *lsptest.Config) {
		c.InitOptions = map[string]any{"ollamaHost": down}
		c.Options.Getenv = func(k string) string {
			if k == "PATH" {
				return empty
			}
			return os.Getenv(k)
		}
	})
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Message string
		Error   *struct {
			Kind    string
			Actions []struct{ ID, URL, Model, Command string }
		}
	}
	if err := json.Unmarshal(s.AwaitNotification("icm/runFinished", "the run ends", nil), &f); err != nil || f.Error == nil {
		t.Fatalf("runFinished: %v %+v", err, f)
	}
	if !strings.Contains(f.Message, "Ollama is not installed on this machine") {
		t.Errorf("message %q", f.Message)
	}
	var ids []string
	for _, a := range f.Error.Actions {
		ids = append(ids, a.ID)
	}
	if strings.Join(ids, " ") != "set-server try-demo install-server" || f.Error.Actions[2].URL == "" || f.Error.Actions[2].Model != "qwen3.5:9b" || f.Error.Actions[1].Command != "icm demo" {
		t.Errorf("actions = %+v", f.Error.Actions)
	}
}

// TestRunProgressReadsOnce: a run's progress is titled "Running 01-scope"
// (VS Code names the notice's source: no "icm:"), its reports do not
// repeat the stage the title names, and a failed run's progress ends
// before its failure is told, so no Cancel stays beside the failure
// notice. Before: "icm: running 01-scope", "01-scope: ~819 tokens ->
// ...", and the runFinished came first.
func TestRunProgressReadsOnce(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n"))
	ok := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	vals := progressValues(s, "icm-run-"+ok.RunID)
	if len(vals) == 0 || vals[0]["title"] != "Running 01-scope" {
		t.Fatalf("progress = %v", vals)
	}
	for _, v := range vals[1:] {
		if m, _ := v["message"].(string); strings.Contains(m, "01-scope") {
			t.Errorf("a report repeats the stage of the title: %q", m)
		}
	}

	s.ollama.Default(ollamatest.Fail(400, "the test refuses this call"))
	failed := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "force": true, "note": "the objectives are fine"})
	if failed.OK {
		t.Fatalf("the run did not fail: %+v", failed)
	}
	ended, told := -1, -1
	for i, n := range s.AllNotifications() {
		switch {
		case n.Method == "$/progress" && strings.Contains(string(n.Params), `"icm-run-`+failed.RunID+`"`) && strings.Contains(string(n.Params), `"kind":"end"`):
			ended = i
		case n.Method == "icm/runFinished" && strings.Contains(string(n.Params), failed.RunID):
			told = i
		}
	}
	if ended < 0 || told < 0 || ended > told {
		t.Errorf("the progress ended at notification %d, the failure was told at %d: the progress must end first", ended, told)
	}
}

// runStatus is the status icm.runs gives the run with the id.
func runStatus(t *testing.T, s *session, id string) string {
	t.Helper()
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct{ ID, Status string }
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if run.ID == id {
			return run.Status
		}
	}
	return ""
}

// TestRunsViewSaysRunningThenCancelled: while a run waits on the model
// the Runs view lists it as running; cancelled from the editor, it is
// cancelled, not failed.
func TestRunsViewSaysRunningThenCancelled(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Hang())
	raw, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ RunID string }
	_ = json.Unmarshal(raw, &started)
	s.AwaitNotification("$/progress", "the run reports", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "tokens")
	})
	if got := runStatus(t, s, started.RunID); got != "running" {
		raw, _ := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
		t.Errorf("while it runs, the run %s is %q: %s", started.RunID, got, raw)
	}
	if _, err := s.ExecuteCommand("icm.cancel", map[string]any{"workspace": s.dir}); err != nil {
		t.Fatal(err)
	}
	s.AwaitNotification("icm/runFinished", "the cancelled run ends", nil)
	s.Await("the run is listed as cancelled", func() bool { return runStatus(t, s, started.RunID) == "cancelled" })
}

// TestAModelTypoIsAConfigErrorInTheEditor: a model name the server lacks,
// saved in config.toml, puts an approved stage in config error with its
// approval kept (not stale), and fixing it brings the approval back.
// Before, the language server judged no model names and every approved
// stage turned stale.
func TestAModelTypoIsAConfigErrorInTheEditor(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n"))
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	s.AwaitNotification("icm/statusChanged", "approved", stageIs("01-scope", "approved"))
	cfg := filepath.Join(s.dir, "config.toml")
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(text), `name = "qwen3.5:9b"`, `name = "qwen3.5:9"`, 1)
	if err := os.WriteFile(cfg, []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	s.FilesChanged(lsptest.Changed, "config.toml")
	raw := s.AwaitNotification("icm/statusChanged", "a config error", stageIs("01-scope", "config-error"))
	var ws struct {
		Stages []struct{ Name, Status, Kept string }
	}
	_ = json.Unmarshal(raw, &ws)
	for _, st := range ws.Stages {
		if st.Name == "01-scope" && st.Kept != "approved" {
			t.Errorf("01-scope keeps %q, want its approval", st.Kept)
		}
	}
	// The approval before the typo was sent as "approved" too: only a
	// status sent after the fix counts.
	before := len(s.Notifications("icm/statusChanged"))
	if err := os.WriteFile(cfg, text, 0o644); err != nil {
		t.Fatal(err)
	}
	s.FilesChanged(lsptest.Changed, "config.toml")
	s.Await("icm/statusChanged: approved again", func() bool {
		for _, raw := range s.Notifications("icm/statusChanged")[before:] {
			if stageIs("01-scope", "approved")(raw) {
				return true
			}
		}
		return false
	})
}

// upstreamApproved writes the outputs of the stages before 04-draft, the
// outline as given, and approves them as a person would, so 04-draft may
// run (a run of one stage is refused while one it reads is not approved).
func upstreamApproved(t *testing.T, s *session, outline string) {
	t.Helper()
	writeFile(t, s.dir, "pipeline/01-scope/output/objectives.md", "# Objectives\n- learn\n")
	writeFile(t, s.dir, "pipeline/02-research/output/notes.md", "## Notes\n- fact\nSources: https://example.org\n")
	writeFile(t, s.dir, "pipeline/03-outline/output/outline.md", outline)
	for _, stage := range []string{"01-scope", "02-research", "03-outline"} {
		if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": stage, "force": true, "note": "written by the test"}); err != nil {
			t.Fatalf("approve %s: %v", stage, err)
		}
	}
}
