package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

func TestCheckTechArticle(t *testing.T) {
	dir := wstest.Copy(t, "tech-article")
	out, errOut, code := runICM(t, "check", "-w", dir)
	if code != 0 || !strings.Contains(out, "8 stages, 0 errors, 0 warnings") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestExportFileAndStage(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "notes.md")
	os.WriteFile(md, []byte("# Notes\n\n## One\n\nSee [docs](https://example.org/docs).\n\n```go\npackage main\n```\n"), 0o644)
	out, errOut, code := runICM(t, "export", md)
	if code != 0 || !strings.Contains(out, "1 references") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	page, err := os.ReadFile(filepath.Join(dir, "notes.html"))
	if err != nil || !strings.Contains(string(page), `<li id="ref-1"><a href="https://example.org/docs">docs</a>`) {
		t.Fatalf("page: %v\n%s", err, page)
	}

	// A stage name exports that stage's Markdown output.
	ws := wstest.Copy(t, "tech-article")
	os.WriteFile(filepath.Join(ws, "pipeline/03-outline/output/outline.md"), []byte("# Outline\n\n## Part\n"), 0o644)
	out, errOut, code = runICM(t, "export", "-w", ws, "03-outline", "-o", "-")
	if code != 0 || !strings.Contains(out, "<title>Outline</title>") {
		t.Errorf("stage export: exit %d %s", code, errOut)
	}
	if _, _, code := runICM(t, "export", "-w", ws, "05-critique"); code == 0 {
		t.Error("a stage with no output on disk exported")
	}
}

func TestCodeCheckParseOnlyAndStrict(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "a.md")
	os.WriteFile(md, []byte("# A\n\n```go\npackage main\n\nfunc main() {\n\tx :=\n}\n```\n\n```go\nfmt.Println(1)\n```\n"), 0o644)
	report := filepath.Join(dir, "report.md")
	out, errOut, code := runICM(t, "code-check", md, "--report", report)
	if code != 0 || !strings.Contains(out, "2 code block(s) checked, 1 failing") || !strings.Contains(errOut, "a.md:8: go block 1") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(report); !strings.Contains(string(data), "**failing**") {
		t.Errorf("report:\n%s", data)
	}
	if _, _, code := runICM(t, "code-check", md, "--strict"); code != 1 {
		t.Errorf("--strict exit %d, want 1", code)
	}
}
