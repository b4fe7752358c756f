package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// researchTitleHover is 02-research's title hover once its tool servers
// have been listed (or have failed to be).
func researchTitleHover(t *testing.T, s *session) string {
	t.Helper()
	s.Open(scope)
	s.Open(research)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	// Hovering the servers waits for their listings, which bring a new
	// analysis; the title's hover waits for that one.
	for _, server := range []string{"search-server", "browser-server"} {
		if _, err := s.Hover(research, s.Pos(research, server, 0)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Hover(research, s.Pos(research, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHoverCountsToolDefinitions: a stage with tools is counted with the
// definitions its servers list, in the first call and the token table.
func TestHoverCountsToolDefinitions(t *testing.T) {
	s := newSession(t)
	got := researchTitleHover(t, s)
	// The table has the counts in full; the first call's line, estimates
	// as the vocabulary writes them.
	number := func(re string) int {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("the hover lacks %s:\n%s", re, got)
		}
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		return n
	}
	defs := number(`\| tool definitions \(5 tools, estimated\) \| tools \| system \| ([\d,]+) \|`)
	first := number(`\| \*\*first call as the server sees it\*\* \(estimated\) \| \| \| \*\*([\d,]+)\*\* \|`)
	total := number(`\| \*\*total\*\* \| \| \| \*\*([\d,]+)\*\* \|`)
	if defs < 500 || first < total+defs {
		t.Errorf("first call %d, tool definitions %d, context %d: the definitions are not counted on top", first, defs, total)
	}
	if want := fmt.Sprintf("First call: %s, estimated, of which 5 tool definitions take ~%s", human.Estimate(first), human.Approx(defs)); !strings.Contains(got, want) {
		t.Errorf("the hover lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "Counted without") {
		t.Errorf("nothing should be left out:\n%s", got)
	}
}

// TestHoverSaysWhichToolsAreLeftOut: a server that cannot be listed is
// left out of the count, and the hover says so and why.
func TestHoverSaysWhichToolsAreLeftOut(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) { c.Options.Self = filepath.Join(t.TempDir(), "no-icm-here") })
	got := researchTitleHover(t, s)
	for _, want := range []string{"⚠ Counted without the tool definitions of browser-server: ", "; search-server: "} {
		if !strings.Contains(got, want) {
			t.Errorf("hover lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "tool definitions take") || strings.Contains(got, "not listed yet") {
		t.Errorf("no definitions can be counted, and the listing has failed by now:\n%s", got)
	}
}

// TestEditsCountExactlyAndAskTheServerOnce: with the model's files in the
// models folder and the server serving them, the hover's count is exact,
// and a run of edits (an analysis and a new model client each) asks the
// server for its digests once, not once per edit.
func TestEditsCountExactlyAndAskTheServerOnce(t *testing.T) {
	models := t.TempDir()
	if err := realollama.LayOut(models, "qwen3.5:9b", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{models}, "qwen3.5:9b")
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 8192, Digest: f.Digest}}, AllowUnscripted: true})
	dir := wstest.Copy(t, "course-research")
	getenv := func(k string) string {
		if k == "OLLAMA_MODELS" {
			return models
		}
		return os.Getenv(k)
	}
	ed := lsptest.Start(t, lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL()},
		Options: lsp.Options{Self: icmBin, Getenv: getenv}})
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "analysed", lsptest.None)
	for i := 0; i < 6; i++ {
		// Each edit makes a new text, so the stage is counted afresh;
		// the hover waits for the analysis that includes the edit.
		ed.Edit(scope, "padded list.", "padded list.!")
		if _, err := ed.Hover(scope, ed.Pos(scope, "# Stage", 2)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ed.Hover(scope, ed.Pos(scope, "# Stage", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "tokens, exact (model tokenizer: BPE default, 259 tokens)") || !strings.Contains(got, "(exact (model tokenizer)) | | | **") {
		t.Errorf("the hover's count is not exact:\n%s", got)
	}
	if n := len(srv.RequestsTo("/api/tags")); n != 1 {
		t.Errorf("7 analyses asked /api/tags %d times, want once", n)
	}
}
