package check

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A scope in words that names none of the file's headings loads the whole
// file, and the note says so; what the words mean is a guess, so it is a
// note, and a note never asks for a rewrite into icm's notation (no
// "quote one of its headings").
func TestFreeTextScopeNoteAdvisesNoRewrite(t *testing.T) {
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
	for _, n := range notes {
		if !strings.Contains(n, "loads the whole file") || strings.Contains(n, "quote") || strings.Contains(n, `"Palette"`) {
			t.Errorf("the note: %s; want it to say the whole file is loaded, and no advice to quote headings", n)
		}
	}
	for _, f := range rep.Findings {
		if f.Code == contract.CodeFreeScope && (f.Severity != contract.Info || f.Basis != contract.BasisReading) {
			t.Errorf("%s: severity %s, basis %q; want a note resting on reading", f.Message, f.Severity, f.Basis)
		}
	}
}
