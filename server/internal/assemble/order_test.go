package assemble_test

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// orderWorkspace has three stages that share references listed in other
// orders, and working material they share too.
const orderWorkspace = `
-- CLAUDE.md --
# Identity
-- _config/audience.md --
AUDIENCE
-- _config/voice.md --
VOICE
-- notes.md --
NOTES
-- plan.md --
PLAN
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Inputs
- Layer 3 (reference): ../../_config/audience.md
- Layer 4 (working): ../../plan.md
## Process
Do A.
## Outputs
- a.md -> output/
-- pipeline/01-a/own.md --
OWN-A
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b
## Inputs
- Layer 3 (reference): own.md
- Layer 3 (reference): ../../_config/voice.md
- Layer 3 (reference): ../../_config/audience.md
- Layer 4 (working): ../../notes.md
- Layer 4 (working): ../../plan.md
## Process
Do B.
## Outputs
- b.md -> output/
-- pipeline/02-b/own.md --
OWN-B
-- pipeline/03-c/CONTEXT.md --
# Stage: 03-c
## Inputs
- Layer 3 (reference): ../../_config/voice.md
- Layer 3 (reference): ../../_config/audience.md
- Layer 4 (working): ../../plan.md
- Layer 4 (working): ../../notes.md
## Process
Do C.
## Outputs
- c.md -> output/
`

// TestSharedReferencesGoInOneOrder: the references several stages load
// come first in every stage's system text, in one order for the whole
// workspace (the most loaded first), whatever order a contract lists
// them in; a stage's own references follow; working material keeps each
// contract's order; every caller gets the same text, whether it passes
// the check's order or none.
func TestSharedReferencesGoInOneOrder(t *testing.T) {
	ws, err := workspace.Open(wstest.Write(t, orderWorkspace), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Run(ws, check.Options{})
	at := func(text, s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("%q is not in the text", s)
		}
		return i
	}
	for _, name := range []string{"02-b", "03-c"} {
		sr := rep.Stage(name)
		cx, err := assemble.Stage(ws, sr.Stage, sr.Contract, assemble.Options{Order: rep.Order})
		if err != nil {
			t.Fatal(err)
		}
		if !(at(cx.System, "AUDIENCE") < at(cx.System, "VOICE")) {
			t.Errorf("%s: voice.md before audience.md, which more stages load", name)
		}
		if name == "02-b" && !(at(cx.System, "VOICE") < at(cx.System, "OWN-B")) {
			t.Errorf("02-b: its own reference before the shared ones")
		}
		notes, plan := at(cx.User, "NOTES"), at(cx.User, "PLAN")
		if (name == "02-b") != (notes < plan) {
			t.Errorf("%s: the working material is not in the contract's order", name)
		}
		alone, err := assemble.Stage(ws, sr.Stage, sr.Contract, assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if alone.System != cx.System || alone.User != cx.User {
			t.Errorf("%s: assembled without the check's order, the text differs", name)
		}
	}
	// The finding where the written order parts sooner from the stage
	// before: 03-c lists voice.md first, 02-b sends audience.md first.
	var notes []string
	for _, f := range rep.Findings {
		if f.Code == "shared-order" {
			notes = append(notes, f.File+": "+f.Message)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "02-b") || !strings.Contains(notes[1], "03-c") || !strings.Contains(notes[1], "icm sends ../../_config/audience.md (a reference 3 stages load) before ../../_config/voice.md, as 02-b does") {
		t.Errorf("shared-order notes:\n%s", strings.Join(notes, "\n"))
	}
}
