package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// The sample workspace's research notes in the editor, with the scripted
// model and icm's own search and browser servers: the hover on the note
// taken from the page the model read shows that page's passage, Go to
// Definition opens the read-only document of what the model saw, and the
// note citing a page it never fetched is marked.
func TestEvidenceOfTheResearchNotesInTheEditor(t *testing.T) {
	site := sites.New(t)
	pageURL := site.URL + sites.PathLong
	searx := fakesearx.New(t, func(q string) []fakesearx.Result {
		return []fakesearx.Result{{Title: "Workspace guide", URL: pageURL, Content: "A guide."}}
	})
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768, Capabilities: []string{"completion", "tools"}}}, AllowUnscripted: true})
	dir := wstest.Copy(t, "course-research")
	cfg := filepath.Join(dir, "config.toml")
	src, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "http://localhost:8090", searx.URL, 1)
	text = strings.Replace(text, `args = ["mcp", "browser"]`, `args = ["mcp", "browser", "--allow-host", "127.0.0.1", "--no-cache"]`, 1)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	trusttest.Grant(t, dir)
	c := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	c.Options.Self = icmBin
	s := &session{Editor: lsptest.Start(t, c), dir: dir, ollama: srv}

	srv.On(ollamatest.UserContains("Write four to six learning")).Reply(ollamatest.Text("1. Install Ollama.\n2. Call the API.\n"))
	research := ollamatest.UserContains("For each learning objective, find one or two")
	srv.On(ollamatest.And(research, ollamatest.Not(ollamatest.HasToolResult("")))).Reply(
		ollamatest.Calls(ollamatest.Call("search-server_search", map[string]any{"query": "workspace guide", "max_results": 3})))
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("search-server_search"), ollamatest.Not(ollamatest.HasToolResult("browser-server_fetch_snippet")))).Reply(
		ollamatest.Calls(ollamatest.Call("browser-server_fetch_snippet", map[string]any{"url": pageURL})))
	never := "https://never.example.org/gpu-guide"
	srv.On(ollamatest.And(research, ollamatest.HasToolResult("browser-server_fetch_snippet"))).Reply(ollamatest.Text(
		"## Install Ollama\n- In the workspace guide, section 0 paragraph 0 holds value 100.\nSources: " + pageURL + "\n\n" +
			"## Call the API\n- Volunteers benchmark quantised mixtures on rented clusters every winter.\nSources: " + never + "\n"))

	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("01-scope: %+v", f)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": dir, "stage": "02-research"}); !f.OK && len(f.Outputs) == 0 {
		t.Fatalf("02-research: %+v", f)
	}
	const notes = "pipeline/02-research/output/notes.md"
	s.Open(notes)
	body := s.Text(notes)
	lines := strings.Split(body, "\n")
	at := func(sub string) uint32 {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return uint32(i)
			}
		}
		t.Fatalf("no line holds %q:\n%s", sub, body)
		return 0
	}
	read, invented := at("holds value 100"), at("Volunteers")
	hover, err := s.Hover(notes, protocol.Position{Line: read, Character: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover, "Rests on "+pageURL) {
		t.Errorf("the hover on the note from the page read:\n%s", hover)
	}
	var locs []protocol.Location
	if err := s.TextDocumentCall("textDocument/definition", notes, map[string]any{"position": protocol.Position{Line: read, Character: 4}}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || !strings.HasPrefix(locs[0].URI, "icm-call:") {
		t.Fatalf("Go to Definition = %+v, want the tool call's document", locs)
	}
	raw, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": locs[0].URI})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Text string }
	if err := json.Unmarshal(raw, &doc); err != nil || !strings.Contains(doc.Text, "section 0 paragraph 0 holds value 100") {
		t.Errorf("the document of what the model saw (%v):\n%.600s", err, doc.Text)
	}
	diags := s.AwaitDiagnostics(notes, "the page never fetched", func(ds []lsptest.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == "url_never_read" {
				return true
			}
		}
		return false
	})
	for _, d := range diags {
		if d.Code == "url_never_read" && (!strings.Contains(d.Message, never) || d.Range.Start.Line != invented+1) {
			t.Errorf("the mark: %+v (the note is on line %d, its Sources line after it)", d, invented+1)
		}
	}
}
