package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

const (
	scope    = "pipeline/01-scope/CONTEXT.md"
	research = "pipeline/02-research/CONTEXT.md"
	outline  = "pipeline/03-outline/CONTEXT.md"
	draft    = "pipeline/04-draft/CONTEXT.md"
)

func start(t *testing.T) (*lsptest.Editor, string) {
	s := newSession(t)
	return s.Editor, s.dir
}

func TestDiagnosticsFollowTyping(t *testing.T) {
	ed, _ := start(t)
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "clean at first", lsptest.None)

	ed.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): inptu.md")
	ds := ed.AwaitDiagnostics(scope, "a missing input", lsptest.HasCode("input-missing"))
	var missing lsptest.Diagnostic
	for _, d := range ds {
		if d.Code == "input-missing" {
			missing = d
		}
	}
	if missing.Severity != 1 || !strings.Contains(missing.Message, "did you mean") || missing.Data["suggest_relative"] != "input.md" {
		t.Errorf("missing-input diagnostic = %+v", missing)
	}
	if want := ed.Pos(scope, "inptu.md", 0); missing.Range.Start != want {
		t.Errorf("range starts at %+v, want %+v", missing.Range.Start, want)
	}

	ed.Edit(scope, "inptu.md", "input.md")
	ed.AwaitDiagnostics(scope, "cleared when fixed", lsptest.None)
}

func TestDiagnosticsNonASCIIPositions(t *testing.T) {
	ed, _ := start(t)
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "clean at first", lsptest.None)
	// Characters of 2, 3 and 4 bytes (1, 1 and 2 UTF-16 units) before the path.
	ed.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): ünï😀/input.md")
	ds := ed.AwaitDiagnostics(scope, "a missing input", lsptest.HasCode("input-missing"))
	want := ed.Pos(scope, "ünï😀/input.md", 0)
	wantEnd := ed.Pos(scope, "ünï😀/input.md", len("ünï😀/input.md"))
	for _, d := range ds {
		if d.Code == "input-missing" && (d.Range.Start != want || d.Range.End != wantEnd) {
			t.Errorf("range = %+v, want %+v..%+v", d.Range, want, wantEnd)
		}
	}
}

func TestDiagnosticsOfDependentContractsOnDiskChange(t *testing.T) {
	ed, dir := start(t)
	ed.Open(scope)
	ed.Open(outline)
	ed.AwaitDiagnostics(scope, "clean at first", lsptest.None)
	// The audience profile is read by every stage; deleting it on disk
	// breaks all of them, and the watcher notification says so.
	if err := os.Remove(filepath.Join(dir, "_config", "audience.md")); err != nil {
		t.Fatal(err)
	}
	ed.FilesChanged(lsptest.Deleted, "_config/audience.md")
	ed.AwaitDiagnostics(scope, "scope loses its reference", lsptest.HasCode("input-missing"))
	ed.AwaitDiagnostics(outline, "outline loses its reference", lsptest.HasCode("input-missing"))
	// A contract that is not open gets its diagnostics too.
	ed.AwaitDiagnostics(draft, "draft, not open", lsptest.HasCode("input-missing"))

	if err := os.WriteFile(filepath.Join(dir, "_config", "audience.md"), []byte("# Audience\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed.FilesChanged(lsptest.Created, "_config/audience.md")
	ed.AwaitDiagnostics(scope, "restored", lsptest.None)
	ed.AwaitDiagnostics(draft, "restored", func(ds []lsptest.Diagnostic) bool { return !lsptest.HasCode("input-missing")(ds) })
}

func TestDiagnosticsFollowAnUpstreamOutput(t *testing.T) {
	ed, dir := start(t)
	ed.Open(research)
	ed.AwaitDiagnostics(research, "objectives not produced yet", lsptest.HasCode("input-not-yet-produced"))
	// The scope stage's output appears on disk (a run in a terminal, say).
	writeFile(t, dir, "pipeline/01-scope/output/objectives.md", "1. Install Ollama.\n")
	ed.FilesChanged(lsptest.Created, "pipeline/01-scope/output/objectives.md")
	ed.AwaitDiagnostics(research, "the note goes", func(ds []lsptest.Diagnostic) bool { return !lsptest.HasCode("input-not-yet-produced")(ds) })
}

// The file list behind "did you mean" is kept between keystrokes and read
// again when a file is created: the suggestion follows the disk.
func TestPathSuggestionFollowsNewFiles(t *testing.T) {
	ed, dir := start(t)
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "clean at first", lsptest.None)
	ed.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): glossary-v2.md")
	suggestion := func(ds []lsptest.Diagnostic) string {
		for _, d := range ds {
			if d.Code == "input-missing" {
				return d.Data["suggest_relative"]
			}
		}
		return "(no finding)"
	}
	ds := ed.AwaitDiagnostics(scope, "a missing input", lsptest.HasCode("input-missing"))
	if got := suggestion(ds); got == "glossary-v1.md" {
		t.Fatalf("suggested %q before the file existed", got)
	}
	writeFile(t, dir, "pipeline/01-scope/glossary-v1.md", "# Terms\n")
	ed.FilesChanged(lsptest.Created, "pipeline/01-scope/glossary-v1.md")
	ed.AwaitDiagnostics(scope, "the new file is suggested", func(ds []lsptest.Diagnostic) bool {
		return suggestion(ds) == "glossary-v1.md"
	})
}
