package lsp_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

func TestHover(t *testing.T) {
	s := newSession(t)
	outline := "## Install Ollama\n- a\n\n## Pull a model\n- b\n\n## Ask it something\n- c\n"
	writeFile(t, s.dir, "pipeline/03-outline/output/outline.md", outline)
	s.Open(scope)
	s.Open(draft)
	s.Open(research)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)

	tests := []struct {
		name string
		file string
		at   string
		want []string
		skip int // bytes after the start of at
	}{
		{"title: context, parts and window", scope, "# Stage: 01-scope", []string{
			"**01-scope**", "tokens (system", "First call: ", "tokens, estimated", "| part | layer | role | tokens |", "_config/audience.md", "pipeline/01-scope/input.md",
			"**total**", "8,192-token window of qwen3.5:9b", "**System**", "**User**", "Turn the one-line course idea"}, 0},
		{"input line: first lines and tokens", scope, "input.md", []string{"pipeline/01-scope/input.md", "working material", "tokens,", "```text"}, 0},
		{"reference input", scope, "../../_config/audience.md", []string{"_config/audience.md", "reference (layer 3"}, 0},
		{"input not produced yet", research, "../01-scope/output/objectives.md", []string{"Not produced yet: stage 01-scope writes it"}, 0},
		{"for each: the items", draft, "module in", []string{"3 items", "1. Install Ollama", "2. Pull a model", "3. Ask it something"}, 0},
		{"tool: description and parameters", research, "server: search", []string{"**search-server: search**", "`search-server_search`", "| parameter | type | required |", "`query`"}, len("server: ")},
		{"server: its tools", research, "browser-server", []string{"**browser-server**", "`summarize`", "`fetch_urls`"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Hover(tt.file, s.Pos(tt.file, tt.at, tt.skip))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("hover lacks %q:\n%s", w, got)
				}
			}
		})
	}

	t.Run("the head's estimate is the parts table's total", func(t *testing.T) {
		got, _ := s.Hover(scope, s.Pos(scope, "# Stage", 0))
		total := regexp.MustCompile(`\| \*\*total\*\* \| \| \| \*\*([\d,]+)\*\* \|`).FindStringSubmatch(got)
		if total == nil {
			t.Fatalf("no total in %s", got)
		}
		n, _ := strconv.Atoi(strings.ReplaceAll(total[1], ",", ""))
		if head, _, _ := strings.Cut(got, "\n"); n == 0 || !strings.Contains(head, "· "+human.Estimate(n)+" (system ~") {
			t.Errorf("the head %q does not say the total %d", head, n)
		}
	})

	t.Run("nothing on the Process text", func(t *testing.T) {
		got, err := s.Hover(scope, s.Pos(scope, "Fewer, sharper", 0))
		if err != nil || got != "" {
			t.Errorf("hover = %q, %v; want none", got, err)
		}
	})
}

func TestHoverWarnsWhenOverWindow(t *testing.T) {
	s := newSession(t)
	// A reference far larger than the scripted model's 8192-token window.
	writeFile(t, s.dir, "_config/audience.md", "# Audience\n\n"+strings.Repeat("Readers want clear, exact steps that work on the first try. ", 2500))
	s.Open(scope)
	s.AwaitDiagnostics(scope, "over the window", lsptest.HasCode("context-over-window"))
	got, err := s.Hover(scope, s.Pos(scope, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "**Does not fit**") {
		t.Errorf("hover does not warn:\n%s", got)
	}
}

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Hovers on inputs written in ICM-template notations say what the loader
// makes of them: a glob's files, an optional file that is not there, a
// binary file given by path and size.
func TestHoverTemplateNotations(t *testing.T) {
	s := newSession(t)
	src, err := os.ReadFile(filepath.Join(s.dir, scope))
	if err != nil {
		t.Fatal(err)
	}
	extra := "- Layer 3 (reference): ../../_config/*.md\n- Layer 4 (working): notes.md (if any)\n- Layer 4 (working): cover.png\n"
	writeFile(t, s.dir, scope, strings.Replace(string(src), "- Layer 4 (working): input.md\n", "- Layer 4 (working): input.md\n"+extra, 1))
	writeFile(t, s.dir, "pipeline/01-scope/cover.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	s.Open(scope)
	s.AwaitDiagnostics(scope, "the binary note", func(ds []lsptest.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, "cover.png is a binary file") {
				return true
			}
		}
		return false
	})
	for _, tt := range []struct{ at, want string }{
		{"../../_config/*.md", "· 2 files\n\n- _config/audience.md\n- _config/voice.md"},
		{"notes.md", "Optional, and not there: the stage runs without it."},
		{"cover.png", "A binary file (16 B): the model is given its path and size only."},
	} {
		got, err := s.Hover(scope, s.Pos(scope, tt.at, 0))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("hover on %s lacks %q:\n%s", tt.at, tt.want, got)
		}
	}
}
