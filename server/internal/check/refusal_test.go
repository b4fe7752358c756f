package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// notCertain is a workspace whose every stage has something icm reads as
// wrong but cannot be sure stops the stage: each is a line of its own
// notation written some other way, a stage order the author may mean, or
// a pattern no file fits yet. None of it may be an error, since an error
// means the stage will not run.
const notCertain = `
-- CLAUDE.md --
# Who
-- pipeline/01-draft/CONTEXT.md --
# Stage: 01-draft

## Inputs
- Layer 7 (working): notes.md
- Layer 4 (working): ../03-final/output/final.md
- Layer 3 (reference): style.md#Voice and tone
- Layer 4 (working): chapters/*.md
- Layer 4 (working): drafts/[topic]-draft.md
- Layer 4 (working): research/

## Process
Draft the piece.

## Process
Draft it again.

## Verify
- headings lots

## Model
temperature: warm

## Gate
perhaps

## Outputs
- draft.md -> output/
- draft.md -> output/
-- pipeline/01-draft/notes.md --
Some notes.
-- pipeline/01-draft/style.md --
# Style

Plain words.
-- pipeline/02-tools/CONTEXT.md --
# Stage: 02-tools

## Tools
web search, then reading

## Script
timeout: soon

## Outputs
- draft.md -> ../01-draft/output/
- list.md -> output/
-- pipeline/03-final/CONTEXT.md --
# Stage: 03-final

Write the final piece from the draft.

## Outputs
- final.md -> output/
`

// TestOnlyACertainFactIsAnError: of everything wrong in notCertain, none
// is an error (each is a warning or a note, told where it is), while a
// plain input that is nowhere and that no stage writes still is.
func TestOnlyACertainFactIsAnError(t *testing.T) {
	dir := wstest.Write(t, notCertain+`-- pipeline/04-last/CONTEXT.md --
# Stage: 04-last

## Inputs
- Layer 4 (working): sources/interview.md

## Process
Sum it up.

## Outputs
- summary.md -> output/
`)
	rep := Run(open(t, dir), Options{})
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		line := findingLine(t, f)
		if f.Severity == contract.Error {
			if f.Code == contract.CodeInputMissing && strings.HasSuffix(filepath.ToSlash(f.File), "04-last/CONTEXT.md") {
				continue
			}
			t.Errorf("%s:%d: %s is an error, but nothing in it is certain to stop the stage", rel(dir, f.File), line, f)
		}
		codes[f.Code] = true
	}
	// Each problem is still told, as a warning or a note.
	for _, code := range []string{contract.CodeBadLayer, contract.CodeInputLater, contract.CodeScopeNotFound, contract.CodeDuplicateSection,
		contract.CodeBadVerify, contract.CodeBadModel, contract.CodeBadGate, contract.CodeOutputConflict, contract.CodeBadTools,
		contract.CodeBadScript, contract.CodeOutputLocation, contract.CodeMissingSection} {
		if !codes[code] {
			t.Errorf("nothing says %s any more", code)
		}
	}
	missing := 0
	for _, f := range rep.FindingsFor(filepath.Join(dir, "pipeline", "04-last", "CONTEXT.md")) {
		if f.Severity == contract.Error && f.Code == contract.CodeInputMissing {
			missing++
		}
	}
	if missing != 1 {
		t.Errorf("a plain listed input that is nowhere gives %d errors, want 1", missing)
	}
}

func findingLine(t *testing.T, f contract.Finding) int {
	t.Helper()
	src, err := os.ReadFile(f.File)
	if err != nil {
		return 0
	}
	line, _, _ := document.NewMapper(src).LineCol(f.Range.Start)
	return line
}

func rel(dir, file string) string {
	r, err := filepath.Rel(dir, file)
	if err != nil {
		return file
	}
	return filepath.ToSlash(r)
}
