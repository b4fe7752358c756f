package cli

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const rubricWorkspace = `
-- CLAUDE.md --
# Trip planner
-- config.toml --
[model]
name = "m"
-- pipeline/01-trip/CONTEXT.md --
# Stage: 01-trip

## Process
Plan the trip.

## Review Gate
- The route avoids toll roads.
- [ ] Every night has a place to sleep.

## Outputs
- trip.md -> output/
-- pipeline/01-trip/references/trip-rubric.md --
## Required Sections
- Route
- Nights
`

// The review gate at the terminal: icm run says the rubric failed, names
// what is missing and the rubric that asked for it, lists the contract's
// Review Gate, and offers both ways through; icm status shows the same
// line and findings; a plain approve is refused, --force approves.
func TestRunShowsRubricAndReviewGate(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Trip\n\n## Route\nCoast road.\n"))
	dir := wstest.Write(t, rubricWorkspace)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, code := runAsUser(t, dir, vars, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	// The progress (on stderr) names each failure as it is found.
	for _, want := range []string{
		`pipeline/01-trip/output/trip.md: missing section "Nights" (pipeline/01-trip/references/trip-rubric.md)`,
		"1 of 2 rubric checks failed",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("run progress lacks %q:\n%s", want, errOut)
		}
	}
	for _, want := range []string{
		`Review gate: 1 of 2 rubric checks pass: missing section "Nights" on`,
		"The contract's Review Gate asks you to check:\n    - The route avoids toll roads.\n    - Every night has a place to sleep.\n",
		"icm approve 01-trip --force --note REASON",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runAsUser(t, dir, vars, "status")
	for _, want := range []string{`1 of 2 rubric checks pass: missing section "Nights"`, `trip.md: missing section "Nights"`} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if _, errOut, code := runAsUser(t, dir, vars, "approve", "01-trip"); code == 0 || !strings.Contains(errOut, "failing rubric checks") {
		t.Errorf("approve past a failing rubric: code %d\n%s", code, errOut)
	}
	if out, errOut, code := runAsUser(t, dir, vars, "approve", "01-trip", "--force", "--note", "nights are booked by phone"); code != 0 {
		t.Errorf("approve --force: %d\n%s%s", code, out, errOut)
	}
}
