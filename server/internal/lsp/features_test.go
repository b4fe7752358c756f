package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

type lens struct {
	Range   json.RawMessage `json:"range"`
	Command struct {
		Title     string           `json:"title"`
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
}

func titles(ls []lens) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Command.Title)
	}
	return out
}

func TestCodeLenses(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	var ls []lens
	if err := s.TextDocumentCall("textDocument/codeLens", scope, nil, &ls); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(titles(ls), " | ")
	for _, want := range []string{"▶ Run stage", "~970 tokens", "pending"} {
		if !strings.Contains(got, want) {
			t.Errorf("lenses %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "Approve") {
		t.Errorf("a pending stage offers Approve: %q", got)
	}
	for _, l := range ls {
		if a := l.Command.Arguments; len(a) != 1 || a[0]["workspace"] != s.dir || a[0]["stage"] != "01-scope" {
			t.Errorf("lens %q arguments = %v", l.Command.Title, a)
		}
	}
}

func TestForEachSourceLensFollowsTrimming(t *testing.T) {
	s := newSession(t)
	const src = "pipeline/03-outline/output/outline.md"
	writeFile(t, s.dir, src, "# Outline\n\n## One\n- a\n\n## Two\n- b\n\n## Three\n- c\n")
	s.Open(src)
	lenses := func() string {
		var ls []lens
		if err := s.TextDocumentCall("textDocument/codeLens", src, nil, &ls); err != nil {
			t.Fatal(err)
		}
		return strings.Join(titles(ls), " | ")
	}
	// The file is 03-outline's output too: the count reads beside its
	// state, so the line keeps two lenses.
	if got := lenses(); got != "awaiting review · 3 items for 04-draft | ✓ Approve" {
		t.Errorf("lenses = %q, want the output's state with 3 items for 04-draft, then Approve", got)
	}
	// A person trims a module from the outline; the lens follows the buffer.
	s.Edit(src, "## Three\n- c\n", "")
	if got := lenses(); got != "awaiting review · 2 items for 04-draft | ✓ Approve" {
		t.Errorf("after trimming: lenses = %q, want 2 items", got)
	}
	shownLenses(t, s, src)
}

type action struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command *struct {
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
	Edit *struct {
		Changes         map[string][]struct{ NewText string } `json:"changes"`
		DocumentChanges []map[string]any                      `json:"documentChanges"`
	} `json:"edit"`
}

func codeActions(t *testing.T, s *session, file, at string) []action {
	t.Helper()
	p := s.Pos(file, at, 0)
	var out []action
	if err := s.TextDocumentCall("textDocument/codeAction", file, map[string]any{
		"range": map[string]any{"start": p, "end": p}, "context": map[string]any{"diagnostics": []any{}},
	}, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCodeActions(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): inptu.md")
	s.AwaitDiagnostics(scope, "missing input", lsptest.HasCode("input-missing"))
	acts := codeActions(t, s, scope, "inptu.md")
	byTitle := map[string]action{}
	for _, a := range acts {
		byTitle[a.Title] = a
	}
	fix, ok := byTitle["Change the path to input.md"]
	if !ok || fix.Kind != "quickfix" || fix.Edit == nil || fix.Edit.Changes[s.DocURI(scope)][0].NewText != "input.md" {
		t.Errorf("no path fix: %+v", acts)
	}
	create, ok := byTitle["Create pipeline/01-scope/inptu.md"]
	if !ok || create.Edit == nil || len(create.Edit.DocumentChanges) != 1 || create.Edit.DocumentChanges[0]["kind"] != "create" ||
		create.Edit.DocumentChanges[0]["uri"] != lsptest.URI(filepath.Join(s.dir, "pipeline/01-scope/inptu.md")) {
		t.Errorf("no create-file action: %+v", create)
	}
	for _, want := range []struct{ title, cmd string }{
		{"Run stage 01-scope", "icm.runStage"}, {"Run all stages", "icm.runAll"},
		{"Approve stage 01-scope", "icm.approveStage"}, {"Probe stage 01-scope (show the assembled context)", "icm.probe"},
	} {
		if a, ok := byTitle[want.title]; !ok || a.Command == nil || a.Command.Command != want.cmd {
			t.Errorf("no %q action running %s", want.title, want.cmd)
		}
	}
}

func TestCreateFileCommandForClientsWithoutFileOperations(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) {
		c.Capabilities = map[string]any{"window": map[string]any{"workDoneProgress": true}}
	})
	s.Open(scope)
	s.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): notes/new.md")
	s.AwaitDiagnostics(scope, "missing input", lsptest.HasCode("input-missing"))
	var create *action
	for _, a := range codeActions(t, s, scope, "notes/new.md") {
		if strings.HasPrefix(a.Title, "Create ") {
			create = &a
		}
	}
	if create == nil || create.Command == nil || create.Command.Command != "icm.createFile" {
		t.Fatalf("no icm.createFile action: %+v", create)
	}
	if _, err := s.ExecuteCommand(create.Command.Command, create.Command.Arguments[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "pipeline/01-scope/notes/new.md")); err != nil {
		t.Errorf("file not created: %v", err)
	}
	// The file exists now, empty: the input is no longer missing, and its
	// emptiness is said.
	s.AwaitDiagnostics(scope, "the input exists now", func(ds []lsptest.Diagnostic) bool {
		return !lsptest.HasCode("input-missing")(ds) && lsptest.HasCode("empty-input")(ds) && len(ds) == 1
	})
	// A path leaving the workspace is refused.
	if _, err := s.ExecuteCommand("icm.createFile", map[string]any{"workspace": s.dir, "path": "../outside.md"}); err == nil {
		t.Error("icm.createFile wrote outside the workspace")
	}
}

type completionItem struct {
	Label    string `json:"label"`
	TextEdit struct {
		NewText string `json:"newText"`
	} `json:"textEdit"`
}

func complete(t *testing.T, s *session, file string, pos any) []string {
	t.Helper()
	var raw json.RawMessage
	if err := s.TextDocumentCall("textDocument/completion", file, map[string]any{"position": pos}, &raw); err != nil {
		t.Fatal(err)
	}
	var items []completionItem
	if err := json.Unmarshal(raw, &items); err != nil {
		var list struct{ Items []completionItem }
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("completion result %s: %v", raw, err)
		}
		items = list.Items
	}
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	sort.Strings(out)
	return out
}

func TestCompletion(t *testing.T) {
	s := newSession(t)
	s.Open(outline)
	s.Open(research)
	s.AwaitDiagnostics(outline, "analysed", lsptest.HasCode("input-not-yet-produced"))

	s.Edit(outline, "- Layer 3 (reference): ../../_config/audience.md", "- Layer 3 (reference): ../../_config/audience.md\n- ")
	if got := complete(t, s, outline, s.Pos(outline, "audience.md\n- ", len("audience.md\n- "))); !contains(got, "Layer 4 (working): ", "Layer 3 (reference): ") {
		t.Errorf("layer completions = %v", got)
	}
	s.Edit(outline, "audience.md\n- ", "audience.md\n- Layer 3 (reference): ")
	paths := complete(t, s, outline, s.Pos(outline, "(reference): \n", len("(reference): ")))
	if !contains(paths, "../01-scope/output/objectives.md", "../02-research/output/notes.md", "../../_config/voice.md", "../01-scope/input.md") {
		t.Errorf("path completions = %v", paths)
	}
	if contains(paths, "../04-draft/output/draft.md") {
		t.Errorf("a later stage's output is offered: %v", paths)
	}

	s.Edit(research, "search-server: search\n", "search-server: search\nbrowser-server: \n")
	tools := complete(t, s, research, s.Pos(research, "browser-server: \n", len("browser-server: ")))
	if !contains(tools, "summarize", "extract", "fetch_snippet", "fetch_urls", "*") {
		t.Errorf("tool completions = %v", tools)
	}
	s.Edit(research, "browser-server: \n", "b\n")
	if servers := complete(t, s, research, s.Pos(research, "\nb\n", 2)); !contains(servers, "browser-server", "search-server", "none") {
		t.Errorf("server completions = %v", servers)
	}

	s.Edit(research, "## Verify", "## Verify\n\n##")
	heads := complete(t, s, research, s.Pos(research, "\n##\n", 3))
	if !contains(heads, "## Model", "## Gate", "## Script") || contains(heads, "## Inputs") {
		t.Errorf("heading completions = %v", heads)
	}
}

func contains(have []string, want ...string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

type location struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct{ Line int } `json:"start"`
	} `json:"range"`
}

func TestDefinitionAndLinks(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.Open(draft)
	var locs []location
	if err := s.TextDocumentCall("textDocument/definition", scope, map[string]any{"position": s.Pos(scope, "audience.md", 2)}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].URI != lsptest.URI(filepath.Join(s.dir, "_config", "audience.md")) {
		t.Errorf("definition = %+v", locs)
	}
	var links []struct {
		Target string `json:"target"`
	}
	if err := s.TextDocumentCall("textDocument/documentLink", draft, nil, &links); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, l := range links {
		rel, _ := filepath.Rel(s.dir, strings.TrimPrefix(l.Target, "file://"))
		targets = append(targets, filepath.ToSlash(rel))
	}
	want := []string{"pipeline/02-research/output/notes.md", "_config/voice.md", "_config/audience.md", "pipeline/04-draft/output/draft.md", "pipeline/03-outline/output/outline.md"}
	if !contains(targets, want...) || len(targets) != len(want) {
		t.Errorf("links = %v, want %v", targets, want)
	}
}

func TestSymbols(t *testing.T) {
	s := newSession(t)
	s.Open(research)
	var doc []struct {
		Name     string `json:"name"`
		Children []struct {
			Name     string `json:"name"`
			Children []struct {
				Name string `json:"name"`
			} `json:"children"`
		} `json:"children"`
	}
	if err := s.TextDocumentCall("textDocument/documentSymbol", research, nil, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 1 || doc[0].Name != "02-research" {
		t.Fatalf("document symbols = %+v", doc)
	}
	var sections []string
	for _, c := range doc[0].Children {
		sections = append(sections, c.Name)
		if c.Name == "Inputs" && len(c.Children) != 3 {
			t.Errorf("Inputs children = %+v", c.Children)
		}
	}
	if got := strings.Join(sections, ","); got != "Inputs,Tools,Process,Outputs,Verify" {
		t.Errorf("sections = %s", got)
	}
	var ws []struct {
		Name     string   `json:"name"`
		Location location `json:"location"`
	}
	if err := s.Call("workspace/symbol", map[string]any{"query": "draft"}, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Name != "04-draft" || ws[0].Location.URI != s.DocURI(draft) {
		t.Errorf("workspace symbols = %+v", ws)
	}
}

func TestStatusAndProbeCommands(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	raw, err := s.ExecuteCommand("icm.status", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Workspaces []struct {
			Workspace string
			Name      string
			Running   any
			Next      struct{ Stage, Action string }
			Stages    []struct {
				Name, Status, Contract string
				Tokens, Items          int
			}
		}
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Workspaces) != 1 {
		t.Fatalf("status = %s", raw)
	}
	w := st.Workspaces[0]
	if w.Workspace != s.dir || w.Name != filepath.Base(s.dir) || w.Running != nil || w.Next.Stage != "01-scope" || w.Next.Action != "run" || len(w.Stages) != 4 {
		t.Errorf("status = %s", raw)
	}
	if w.Stages[0].Tokens != 970 || w.Stages[0].Status != "pending" || w.Stages[3].Items != -1 || w.Stages[0].Contract != s.Abs(scope) {
		t.Errorf("first stage = %+v, last = %+v", w.Stages[0], w.Stages[3])
	}

	raw, err = s.ExecuteCommand("icm.probe", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if err != nil {
		t.Fatal(err)
	}
	var pr struct{ URI, Title, Content string }
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	// A read-only document the server provides, not a file.
	if want := "icm-context://" + filepath.ToSlash(filepath.Join(s.dir, "01-scope.md")); pr.URI != want {
		t.Errorf("probe uri %s, want %s", pr.URI, want)
	}
	if _, err := os.Stat(filepath.Join(s.dir, ".icm", "probe")); !os.IsNotExist(err) {
		t.Errorf("the probe wrote into .icm/probe: %v", err)
	}
	// Titled as the editor names it (issue 34: "# Probe: 04-draft" under
	// a command called Show Assembled Context).
	if pr.Title != "Assembled context: 01-scope" {
		t.Errorf("probe title %q", pr.Title)
	}
	for _, want := range []string{"# Assembled context: 01-scope", "## System (", "## User (", "Read the course idea"} {
		if !strings.Contains(pr.Content, want) {
			t.Errorf("probe lacks %q", want)
		}
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": pr.URI})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Text string }
	if err := json.Unmarshal(raw, &vd); err != nil || vd.Text != pr.Content {
		t.Errorf("icm.virtualDocument gave %q (%v), the probe %q", vd.Text, err, pr.Content)
	}
	// Editing the contract changes the document, and the client is told.
	s.Edit(scope, "Read the course idea", "Read the course idea twice")
	changed := s.AwaitNotification("icm/virtualDocumentChanged", "the context document changed", nil)
	if !strings.Contains(string(changed), "01-scope.md") {
		t.Errorf("icm/virtualDocumentChanged = %s", changed)
	}
	if _, err := s.ExecuteCommand("icm.probe", map[string]any{"workspace": s.dir, "stage": "09-none"}); err == nil {
		t.Error("probe of a missing stage: want an error")
	}
	if _, err := s.ExecuteCommand("icm.nothing", map[string]any{}); err == nil {
		t.Error("unknown command: want an error")
	}
}

// A stage over a thousand tokens reads "~1.3k tokens" on its lens, as its
// Pipeline row and a For each stage's lens do, not "~1289 tokens".
func TestCodeLensTokensReadAsTheViewDoes(t *testing.T) {
	s := newSession(t)
	s.Open(research)
	s.AwaitDiagnostics(research, "analysed", func([]lsptest.Diagnostic) bool { return true })
	var ls []lens
	if err := s.TextDocumentCall("textDocument/codeLens", research, nil, &ls); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(titles(ls), " | ")
	if !regexp.MustCompile(`(^| )~\d+(\.\d)?k tokens( |$)`).MatchString(got) || regexp.MustCompile(`~\d{4,} tokens`).MatchString(got) {
		t.Errorf("lenses %q do not count the stage as ~N.Nk tokens", got)
	}
}

// A misspelt section and a misspelt Verify check each offer the name
// meant as a quick fix on the name.
func TestMisspeltNamesOfferTheNameMeant(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.Edit(scope, "## Process", "## Proces") //nolint:misspell // the typo is what the test is about
	s.Edit(scope, "- no-placeholders", "- no-placeholder")
	s.AwaitDiagnostics(scope, "misspelt names", func(ds []lsptest.Diagnostic) bool {
		return lsptest.HasCode("unknown-section")(ds) && lsptest.HasCode("bad-verify")(ds)
	})
	for _, tc := range []struct{ at, title, text string }{
		{"Proces", "Change it to Process", "Process"}, //nolint:misspell // the typo is what the test is about
		{"no-placeholder", "Change it to no-placeholders", "no-placeholders"},
	} {
		var fix *action
		for _, a := range codeActions(t, s, scope, tc.at) {
			if a.Title == tc.title {
				fix = &a
			}
		}
		if fix == nil || fix.Kind != "quickfix" || fix.Edit == nil || fix.Edit.Changes[s.DocURI(scope)][0].NewText != tc.text {
			t.Errorf("%s: no quick fix %q: %+v", tc.at, tc.title, fix)
		}
	}
}
