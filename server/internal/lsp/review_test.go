package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func lensTitles(t *testing.T, s *session, file string) string {
	t.Helper()
	var ls []lens
	if err := s.TextDocumentCall("textDocument/codeLens", file, nil, &ls); err != nil {
		t.Fatal(err)
	}
	return strings.Join(titles(ls), " | ")
}

func runAndWait(t *testing.T, s *session, command string, args map[string]any) finished {
	t.Helper()
	before := len(s.Notifications("icm/runFinished"))
	if _, err := s.ExecuteCommand(command, args); err != nil {
		t.Fatal(err)
	}
	var f finished
	s.Await("the run ends", func() bool {
		all := s.Notifications("icm/runFinished")
		if len(all) <= before {
			return false
		}
		f = runFinished(t, all[len(all)-1])
		return true
	})
	// The run is over once the workspace has no run going (a run that
	// did some work has ended its progress by then; one refused before
	// any began none).
	ws := args["workspace"]
	s.Await("the run is over", func() bool {
		if v := progressValues(s, "icm-run-"+f.RunID); len(v) > 0 && v[len(v)-1]["kind"] != "end" {
			return false
		}
		raw, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": ws})
		var st struct{ Workspaces []struct{ Running any } }
		return err == nil && json.Unmarshal(raw, &st) == nil && len(st.Workspaces) == 1 && st.Workspaces[0].Running == nil
	})
	return f
}

// TestOutputFileLenses: the output a stage wrote has two short lenses,
// its state and Approve (Re-run once approved); the state in full is the
// state lens's hover and Approve, Compare with the model's version and
// Re-run are under it. Compare names the model's version, which reads as
// the model wrote it while the file holds the person's edit; approving
// from the lens approves. Before, the line held four lenses, the state in
// full first, and at 1440 px Re-run was cut off.
func TestOutputFileLenses(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n2. Pull a small model.\n"))
	const out = "pipeline/01-scope/output/objectives.md"
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	s.AwaitNotification("icm/statusChanged", "awaiting review", stageIs("01-scope", "awaiting-review"))
	s.Open(out)
	s.Await("the output's lenses", func() bool { return strings.HasPrefix(lensTitles(t, s, out), "awaiting review") })
	ls := shownLenses(t, s, out)
	if got := onLine(ls, 0); got != "awaiting review | ✓ Approve" || len(ls) != 2 {
		t.Errorf("output lenses = %v", ls)
	}
	if st := lensNamed(ls, "awaiting review"); strings.Join(st.Actions, " | ") != "✓ Approve | ⇄ Compare with the model's version | ▶ Re-run" || st.Command != "icm.status" {
		t.Errorf("the state lens = %v", st)
	}
	// The person edits and saves; the lens says so.
	s.Edit(out, "2. Pull a small model.\n", "2. Pull a small model.\n3. My own objective.\n")
	if err := os.WriteFile(filepath.Join(s.dir, out), []byte(s.Text(out)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Save(out)
	s.Await("the edit shows", func() bool {
		return strings.HasPrefix(lensNamed(shownLenses(t, s, out), "awaiting review").State, "awaiting review · output edited")
	})
	raw, err := s.ExecuteCommand("icm.compareOutput", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil {
		t.Fatal(err)
	}
	var cmp struct{ Model, Current, Title string }
	if err := json.Unmarshal(raw, &cmp); err != nil || !strings.HasPrefix(cmp.Model, "icm-model:") || cmp.Current != s.DocURI(out) {
		t.Fatalf("compareOutput = %s", raw)
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": cmp.Model})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Text string }
	_ = json.Unmarshal(raw, &vd)
	if vd.Text != "1. Install Ollama.\n2. Pull a small model.\n" {
		t.Errorf("the model's version = %q", vd.Text)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "path": s.Abs(out)}); err != nil {
		t.Fatal(err)
	}
	s.AwaitNotification("icm/statusChanged", "approved", stageIs("01-scope", "approved"))
	s.Await("the lens follows", func() bool { return strings.HasPrefix(lensTitles(t, s, out), "approved") })
	if ls := shownLenses(t, s, out); onLine(ls, 0) != "approved | ▶ Re-run" || strings.Contains(strings.Join(lensNamed(ls, "approved").Actions, "|"), "Approve") {
		t.Errorf("an approved output's lenses: %v", ls)
	}
}

// TestForEachItemLensesAndCallCount: a For each stage's contract counts
// its calls ("2 calls, ~N tokens"); its output has on each item's heading
// line the item's state and Re-run item N; the first item's heading is the
// file's line, which holds the file's state and action and Re-run item 1
// (its state goes under the file's state); icm.runItem runs that item
// alone and keeps the person's edit in the other one.
func TestForEachItemLensesAndCallCount(t *testing.T) {
	s := newSession(t)
	s.ollama.On(ollamatest.LastUserContains("shorter, please")).Reply(ollamatest.Text("## Two\n\nTwo, shorter."))
	s.ollama.On(ollamatest.LastUserContains("## One")).Reply(ollamatest.Text("## One\n\nAbout one."))
	s.ollama.On(ollamatest.LastUserContains("## Two")).Reply(ollamatest.Text("## Two\n\nAbout two."))
	upstreamApproved(t, s, "# Outline\n\n## One\n- a\n\n## Two\n- b\n")
	s.Open(draft)
	s.AwaitDiagnostics(draft, "analysed", func([]lsptest.Diagnostic) bool { return true })
	s.Await("the call count", func() bool {
		return regexp.MustCompile(` · 2 calls, ~[\d.]+k? tokens$`).MatchString(lensTitles(t, s, draft))
	})
	h, err := s.Hover(draft, s.Pos(draft, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`For each: 2 calls, ~[\d.]+k? tokens in the whole stage's first calls`).MatchString(h) {
		t.Errorf("hover lacks the stage's calls:\n%s", h)
	}

	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "04-draft", "force": true}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	const out = "pipeline/04-draft/output/draft.md"
	s.Open(out)
	s.Await("the item lenses", func() bool { return strings.Contains(lensTitles(t, s, out), "item 2 of 2") })
	ls := shownLenses(t, s, out)
	two := lensNamed(ls, "item 2 of 2")
	if got := onLine(ls, two.Line); two.Line == 0 || got != "item 2 of 2 | ▶ Re-run item 2" || two.State != "item 2 of 2: Two · as the model wrote it" {
		t.Errorf("item 2's lenses: %v", ls)
	}
	// Item 1 is re-run from its heading as the others are: before, its
	// Re-run was only under the file's state, and a person found none.
	if got := onLine(ls, 0); got != "awaiting review | ✓ Approve | ▶ Re-run item 1" {
		t.Errorf("the file's line: %q", got)
	}
	if one := lensNamed(ls, "▶ Re-run item 1"); one.Command != "icm.output.rerunItem" {
		t.Errorf("item 1's Re-run runs %q", one.Command)
	}
	file := lensNamed(ls, "awaiting review")
	if !strings.Contains(strings.Join(file.Actions, " | "), "▶ Re-run item 1 (One)") || !strings.HasSuffix(file.State, "item 1 of 2 · as the model wrote it") {
		t.Errorf("item 1 is not under the file's state: %v", file)
	}
	// The palette's Re-run This Item asks which item the cursor is in.
	at := func(line int) (struct {
		Workspace, Stage, Title string
		Item, Items             int
	}, error) {
		var r struct {
			Workspace, Stage, Title string
			Item, Items             int
		}
		raw, err := s.ExecuteCommand("icm.itemAt", map[string]any{"uri": s.DocURI(out), "line": line})
		if err == nil {
			err = json.Unmarshal(raw, &r)
		}
		return r, err
	}
	for _, c := range []struct{ line, item int }{{0, 1}, {1, 1}, {two.Line, 2}, {two.Line + 2, 2}} {
		r, err := at(c.line)
		if err != nil || r.Item != c.item || r.Stage != "04-draft" || r.Workspace != s.dir || r.Items != 2 || r.Title != map[int]string{1: "One", 2: "Two"}[c.item] {
			t.Errorf("icm.itemAt line %d = %+v, %v; want item %d", c.line, r, err, c.item)
		}
	}
	s.Open(draft)
	if _, err := s.ExecuteCommand("icm.itemAt", map[string]any{"uri": s.DocURI(draft), "line": 3}); !isKind(err, "not-found") || !strings.Contains(err.Error(), "not an output of a For each stage") {
		t.Errorf("icm.itemAt in a contract: %v", err)
	}
	// After the run, the hover says what it really used.
	h, _ = s.Hover(draft, s.Pos(draft, "# Stage", 2))
	if !regexp.MustCompile(`Last run: [\d,]+ tokens in / [\d,]+ out · \d+(\.\d)? (ms|s) · qwen3\.5:9b · 2 model calls`).MatchString(h) {
		t.Errorf("hover lacks the last run:\n%s", h)
	}
	// The person edits item 1; item 2 runs again with a note.
	s.Edit(out, "About one.", "About one, in my words.")
	if err := os.WriteFile(filepath.Join(s.dir, out), []byte(s.Text(out)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Save(out)
	s.Await("item 1 reads edited", func() bool {
		return strings.HasSuffix(lensNamed(shownLenses(t, s, out), "awaiting review").State, "item 1 of 2 · edited")
	})
	if f := runAndWait(t, s, "icm.runItem", map[string]any{"workspace": s.dir, "stage": "04-draft", "item": 2, "note": "shorter, please"}); !f.OK {
		t.Fatalf("item run: %+v", f)
	}
	data, _ := os.ReadFile(filepath.Join(s.dir, out))
	if want := "## One\n\nAbout one, in my words.\n\n## Two\n\nTwo, shorter.\n"; string(data) != want {
		t.Errorf("after re-running item 2:\n%s\nwant:\n%s", data, want)
	}
}

// TestRunsView: icm.runs lists runs newest first as trees of stages,
// items and calls; a model call's URI opens its request and reply.
func TestRunsView(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n"))
	runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	second := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct {
			ID     string
			Stages []struct {
				Kind, Text, Stage string
				Children          []struct{ Kind, Text, URI string }
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 2 || r.Runs[0].ID != second.RunID {
		t.Fatalf("runs = %s", raw)
	}
	st := r.Runs[0].Stages[0]
	if st.Kind != "stage" || !strings.HasPrefix(st.Text, "01-scope  done") || len(st.Children) == 0 || st.Children[0].Kind != "model" || st.Children[0].URI == "" {
		t.Fatalf("the run's tree = %+v", st)
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": st.Children[0].URI})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Text string }
	_ = json.Unmarshal(raw, &vd)
	for _, want := range []string{"# Model call 1 of 01-scope", "## Request", "### 1. system", "### 2. user", "## Reply", "1. Install Ollama."} {
		if !strings.Contains(vd.Text, want) {
			t.Errorf("the call's document lacks %q:\n%s", want, vd.Text)
		}
	}
	// Its figures are the one vocabulary's, and the window is said to be
	// the call's (the hover's is the model's): not "window 8192" beside
	// a hover's 32768.
	head := regexp.MustCompile(`Run \S+ · qwen3\.5:9b · [\d,]+ tokens in / [\d,]+ out · \d+(\.\d)? (ms|s)( ·|\n)`)
	if !head.MatchString(vd.Text) || regexp.MustCompile(`window \d{4,}`).MatchString(vd.Text) {
		t.Errorf("the call's figures:\n%s", vd.Text)
	}
	if strings.Contains(vd.Text, "icm counted") && !regexp.MustCompile(`this call's window was [\d,]+ tokens`).MatchString(vd.Text) {
		t.Errorf("the call's window is not said to be the call's:\n%s", vd.Text)
	}
}

// A For each stage over one item says "1 call" in its hover, not "1 calls".
func TestForEachOfOneItemSaysOneCall(t *testing.T) {
	s := newSession(t)
	writeFile(t, s.dir, "pipeline/02-research/output/notes.md", "## Notes\n- fact\nSources: https://example.org\n")
	writeFile(t, s.dir, "pipeline/03-outline/output/outline.md", "# Outline\n\n## One\n- a\n")
	s.Open(draft)
	s.AwaitDiagnostics(draft, "analysed", func([]lsptest.Diagnostic) bool { return true })
	var h string
	s.Await("the stage's calls in the hover", func() bool {
		var err error
		h, err = s.Hover(draft, s.Pos(draft, "# Stage", 2))
		return err == nil && strings.Contains(h, "For each: 1 call")
	})
	if strings.Contains(h, "1 calls") {
		t.Errorf("hover says %q:\n%s", "1 calls", h)
	}
}

// TestAToolCallOpensInTheRunsView: a tool call of a run has a document
// like a model call's: its arguments, its error, and the result the model
// was given. Before, icm.runs gave tool calls no URI (only model calls
// could be opened).
func TestAToolCallOpensInTheRunsView(t *testing.T) {
	s := newSession(t)
	writeFile(t, s.dir, "pipeline/01-scope/output/objectives.md", "1. Install Ollama.\n")
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	// The first call searches; once the (failed) result is back, the notes.
	s.ollama.On(ollamatest.HasToolResult("")).Reply(ollamatest.Text("## Notes\n- Ollama listens on 11434.\n\nSources: https://example.org/guide\n"))
	s.ollama.Default(ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "install ollama"})))
	f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "02-research"})
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct {
			ID, Status string
			Stages     []struct {
				Children []struct{ Kind, Text, URI, Error string }
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Runs) == 0 || r.Runs[0].ID != f.RunID || len(r.Runs[0].Stages) == 0 {
		t.Fatalf("runs = %s", raw)
	}
	uri := ""
	for _, c := range r.Runs[0].Stages[0].Children {
		if c.Kind == "tool" {
			uri = c.URI
		}
	}
	if !strings.HasPrefix(uri, "icm-call:") || !strings.HasSuffix(uri, "/tool-1.md") {
		t.Fatalf("the tool call's URI = %q in %s", uri, raw)
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": uri})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Text string }
	_ = json.Unmarshal(raw, &vd)
	for _, want := range []string{"# Tool call 1 of 02-research", "search-server_search", "## Arguments", `"query": "install ollama"`, "## Error", "## Result"} {
		if !strings.Contains(vd.Text, want) {
			t.Errorf("the tool call's document lacks %q:\n%s", want, vd.Text)
		}
	}
	// No SearXNG listens here: the search failed, and its error, which
	// the model was given as the result, is told once.
	if n := strings.Count(vd.Text, "search failed"); n != 1 {
		t.Errorf("the error is told %d times:\n%s", n, vd.Text)
	}
}

// isKind reports whether err is an error reply whose data is of kind.
func isKind(err error, kind string) bool {
	re, ok := lsptest.AsReplyError(err)
	var data struct{ Kind string }
	return ok && json.Unmarshal(re.Data, &data) == nil && data.Kind == kind
}
