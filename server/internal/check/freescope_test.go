package check

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A scope in words that names none of the file's headings loads the whole
// file; the note offers headings the file really has to quote instead, and
// says so plainly when it has none.
func TestFreeTextScopeNoteOffersTheFilesOwnHeadings(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- design/system.md --
# Design system
## Palette
Blue.
## Typography
Serif.
-- design/plain.md --
Just text, no headings at all.
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Inputs
| Source | File | Section |
|---|---|---|
| Design | `+"`../../design/system.md`"+` | The colour rules |
| Notes | `+"`../../design/plain.md`"+` | The relevant parts |
## Process
Do it.
## Outputs
- a.md -> output/
`)
	rep := Run(open(t, dir), Options{})
	var notes []string
	for _, f := range rep.Findings {
		if f.Code == contract.CodeFreeScope {
			notes = append(notes, f.Message)
		}
	}
	if len(notes) != 2 {
		t.Fatalf("free-text scope notes: %q, want one per input", notes)
	}
	withHeadings, without := notes[0], notes[1]
	if !strings.Contains(withHeadings, "system.md") {
		withHeadings, without = without, withHeadings
	}
	if !strings.Contains(withHeadings, `"Palette"`) || !strings.Contains(withHeadings, `"Typography"`) || strings.Contains(withHeadings, "Tone") {
		t.Errorf("the note does not offer the file's own headings: %s", withHeadings)
	}
	if !strings.Contains(without, "no headings") || strings.Contains(without, "Tone") {
		t.Errorf("the note for a file without headings: %s", without)
	}
}
