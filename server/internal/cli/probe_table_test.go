package cli

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestProbeTableIsNotPaddedToItsLongestNote: a part that is not loaded
// says why at the end of its own row; the other rows are as wide as the
// part names need. The notes used to sit inside the right-aligned part
// column, so every row of a template workspace's table was padded to 150
// columns and more.
func TestProbeTableIsNotPaddedToItsLongestNote(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): ../01-a/output/[a-rather-long-placeholder-slug]-extraction-results.md

## Process
Do it.

## Outputs
- b.md -> output/
`)
	out, errOut, code := runICM(t, "probe", "01-a", "-w", dir, "--tokens")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var noteRow string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("row ends in spaces: %q", l)
		}
		if strings.HasPrefix(strings.TrimSpace(l), "CLAUDE.md") && len(l) > 100 {
			t.Errorf("the CLAUDE.md row is %d columns wide: %q", len(l), l)
		}
		if strings.Contains(l, "not loaded") {
			noteRow = l
		}
	}
	if !strings.HasPrefix(noteRow, "pipeline/01-a/output/[a-rather-long-placeholder-slug]-extraction-results.md ") {
		t.Errorf("the part's row does not start with its name:\n%s", out)
	}
	if !strings.Contains(noteRow, " 0  not loaded: ") {
		t.Errorf("the note does not follow the part's tokens:\n%s", out)
	}
}
