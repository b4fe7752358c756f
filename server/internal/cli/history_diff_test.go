package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestHistoryDiffs: --diff --written shows a person's edit against what the
// model wrote, and says when there is none; --diff shows a re-run's change
// against the kept version.
func TestHistoryDiffs(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.On(ollamatest.LastUserContains("WRITE")).Reply(ollamatest.Text("# Draft\n\nFirst line.\n"))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## Process
WRITE a draft.
## Outputs
- draft.md -> output/
`)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, err := runIn(t, dir, vars, "run"); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := runIn(t, dir, vars, "history", "--diff", "01-write", "--written")
	if err != nil || strings.TrimSpace(out) != "pipeline/01-write/output/draft.md: as the model wrote it" {
		t.Fatalf("--written before an edit (%v): %q %s", err, out, errOut)
	}
	draft := filepath.Join(dir, "pipeline/01-write/output/draft.md")
	if err := os.WriteFile(draft, []byte("# Draft\n\nMy own line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runIn(t, dir, vars, "history", "--diff", "01-write", "--written")
	for _, want := range []string{"--- pipeline/01-write/output/draft.md (the model's version)", "+++ pipeline/01-write/output/draft.md", "-First line.", "+My own line."} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("--written after an edit (%v) lacks %q:\n%s%s", err, want, out, errOut)
		}
	}
	// A forced re-run keeps the edited file as a version; the model's
	// answer is the same as the first time.
	if out, errOut, err := runIn(t, dir, vars, "run", "--stage", "01-write", "--force"); err != nil {
		t.Fatalf("re-run: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = runIn(t, dir, vars, "history", "--diff", "01-write")
	for _, want := range []string{"-My own line.", "+First line.", "+++ pipeline/01-write/output/draft.md"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("--diff after the re-run (%v) lacks %q:\n%s%s", err, want, out, errOut)
		}
	}
}
