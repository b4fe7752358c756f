package lsp_test

import (
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// On an output file, the hover over a list item says what it rests on
// (the input's heading path and a score), Go to Definition opens the
// passage, and an item no source supports says so, with the URL it cites
// that nothing read.
func TestEvidenceHoverAndGoToSource(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install software, edit a config file and read a stack trace.\n" +
		"2. Tune a quantised mixture of experts on a rented cluster, see https://gpu.example.org/rent.\n"))
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	const out = "pipeline/01-scope/output/objectives.md"
	s.Open(out)
	text, err := s.Hover(out, protocol.Position{Line: 0, Character: 8})
	if err != nil {
		t.Fatal(err)
	}
	// The first line is the file's own hover (its state); the item's
	// evidence is on its other lines, and on the second item's.
	if !strings.HasPrefix(text, "**01-scope**") {
		t.Errorf("the first line's hover is not the output's state:\n%s", text)
	}
	text, err = s.Hover(out, protocol.Position{Line: 1, Character: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "**Unsupported**") || !strings.Contains(text, "cited, never read: https://gpu.example.org/rent") {
		t.Errorf("hover on the invented item:\n%s", text)
	}

	// The editor marks them too, as information: they inform, they block nothing.
	diags := s.AwaitDiagnostics(out, "the evidence's diagnostics", func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	for i, want := range []string{"unsupported", "url_never_read"} {
		if d := diags[i]; d.Severity != 3 || d.Code != want || d.Source != "icm evidence" || d.Range.Start.Line != 1 {
			t.Errorf("diagnostic %d = %+v, want %s on line 2", i, d, want)
		}
	}

	// The supported item is on the first line, under the state's hover:
	// ask on a file with the item on a later line.
	s.ollama.Default(ollamatest.Text("# Objectives\n\n1. Install software, edit a config file and read a stack trace.\n"))
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "force": true}); !f.OK {
		t.Fatalf("run again: %+v", f)
	}
	s.Close(out)
	s.Open(out)
	s.Await("the hover says what the item rests on", func() bool {
		text, err = s.Hover(out, protocol.Position{Line: 2, Character: 8})
		return err == nil && strings.Contains(text, "Rests on _config/audience.md › Audience › What they want, ")
	})
	var locs []protocol.Location
	if err := s.TextDocumentCall("textDocument/definition", out, map[string]any{"position": protocol.Position{Line: 2, Character: 8}}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "_config/audience.md") || locs[0].Range.Start != (protocol.Position{Line: 10, Character: 0}) {
		t.Errorf("Go to Definition = %+v, want the audience's line 11", locs)
	}
}
