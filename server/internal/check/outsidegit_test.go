package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestOutsideGitWhatLiesAboveIsANote: a workspace in no git repository,
// with no root named, reads nothing above it; whether a shared input
// (a leading /) or a path climbing out with .. is there is then not known,
// so each is a note that names --repo, never an error: an unpacked
// template opens without errors. (It is never read either way.)
func TestOutsideGitWhatLiesAboveIsANote(t *testing.T) {
	top := wstest.Write(t, `
-- docs/guide.md --
# Guide
-- workspaces/w/CLAUDE.md --
# Id
-- workspaces/w/stages/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 3 (reference): /_core/conventions.md
- Layer 3 (reference): ../../../../docs/guide.md

## Process
Go.

## Outputs
- a.md -> output/
`)
	ws := open(t, filepath.Join(top, "workspaces", "w"))
	if ws.Repository != "" {
		t.Skipf("the temporary folder is inside a repository (%s)", ws.Repository)
	}
	got := map[string]contract.Severity{}
	var note string
	rep := Run(ws, Options{})
	for _, f := range rep.Findings {
		if f.Code == contract.CodeInputMissing || f.Code == contract.CodePathEscape {
			got[f.Code] = f.Severity
		}
		if f.Code == contract.CodeInputMissing {
			note = f.Message
		}
		if f.Severity == contract.Error || f.Severity == contract.Warning {
			t.Errorf("%s: %s [%s]", f.Severity, f.Message, f.Code)
		}
	}
	if got[contract.CodeInputMissing] != contract.Info || got[contract.CodePathEscape] != contract.Info {
		t.Errorf("the shared input and the climb read %v, want a note each", got)
	}
	// A run refuses the shared input in the words of the note.
	sr := rep.Stage("01-a")
	_, err := assemble.Stage(ws, sr.Stage, sr.Contract, assemble.Options{})
	_, why, _ := strings.Cut(note, "; ")
	if err == nil || why == "" || !strings.HasSuffix(err.Error(), why) {
		t.Errorf("the run says %v; the note says %q", err, note)
	}
}
