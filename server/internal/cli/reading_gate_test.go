package cli

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// warnedWorkspace has a stage icm reads with two warnings: a Verify line
// it cannot use and a heading the reference lacks.
const warnedWorkspace = `
-- CLAUDE.md --
# Garden planner
-- config.toml --
[model]
name = "m"
-- pipeline/01-beds/CONTEXT.md --
# Stage: 01-beds

## Inputs
- Layer 3 (reference): soil.md#Drainage

## Process
Plan the beds.

## Verify
- min-words many

## Outputs
- beds.md -> output/
-- pipeline/01-beds/soil.md --
# Soil

Clay, mostly.
`

// TestTheGateShowsWhatIcmWarnedOf: a stage whose contract has warnings
// runs, and the review gate icm run prints lists each warning at its line,
// so the person reads them before approving.
func TestTheGateShowsWhatIcmWarnedOf(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Beds\n\nThree raised beds."))
	dir := wstest.Write(t, warnedWorkspace)
	out, errOut, code := runAsUser(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	gate := out[strings.Index(out, "Review gate:"):]
	for _, want := range []string{
		"icm read the contract with 2 warnings",
		`pipeline/01-beds/CONTEXT.md:4: pipeline/01-beds/soil.md: no heading "Drainage" in the file`,
		"pipeline/01-beds/CONTEXT.md:10: min-words",
	} {
		if !strings.Contains(gate, want) {
			t.Errorf("the gate lacks %q:\n%s", want, out)
		}
	}
}

// TestTheGateNamesHeadingsALaterStageReads: icm run's gate says which
// headings a later stage reads of the output that it lacks.
func TestTheGateNamesHeadingsALaterStageReads(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Beds\n\n## Layout\n\nThree raised beds."))
	dir := wstest.Write(t, warnedWorkspace+`-- pipeline/02-sow/CONTEXT.md --
# Stage: 02-sow

## Inputs
- Layer 4 (working): ../01-beds/output/beds.md#Sowing dates

## Process
Sow.

## Outputs
- sowing.md -> output/
`)
	out, errOut, code := runAsUser(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	gate := out[strings.Index(out, "Review gate:"):]
	want := `pipeline/01-beds/output/beds.md lacks "Sowing dates", which 02-sow reads (pipeline/02-sow/CONTEXT.md:4)`
	if !strings.Contains(gate, want) {
		t.Errorf("the gate lacks %q:\n%s", want, out)
	}
}
