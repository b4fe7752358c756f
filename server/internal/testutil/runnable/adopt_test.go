package runnable

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A workspace as a clone has it: the author's result committed in the
// first stage's output/, a stage whose output only a command makes, and
// a stage after them. The measurement keeps the author's results, as a
// person answering the question with "keep them" does (icm run
// --adopt): the first stage is adopted, not run; the second is a manual
// step; the third runs on the adopted output.
const committedRepo = `
-- ws/CLAUDE.md --
# A workspace
-- ws/stages/01-notes/CONTEXT.md --
# Stage: 01-notes

## Process
Take notes.

## Outputs
- notes.md -> output/
-- ws/stages/01-notes/output/notes.md --
The author's notes.
-- ws/stages/02-index/CONTEXT.md --
# Stage: 02-index

## Process
Build the search index with the indexer.

## Outputs
- output/search.db
-- ws/stages/03-summary/CONTEXT.md --
# Stage: 03-summary

## Inputs
- Layer 4 (working): ../01-notes/output/notes.md

## Process
Summarise the notes.

## Outputs
- summary.md -> output/
`

func TestMeasureKeepsTheAuthorsResults(t *testing.T) {
	dir := wstest.Write(t, committedRepo)
	rep, err := Measure(context.Background(), []Repo{{Name: "r", Dir: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Workspaces[0].Stages {
		got = append(got, s.Name+" "+string(s.Outcome)+" "+s.Message)
	}
	want := "01-notes adopted |02-index manual |03-summary ran "
	if strings.Join(got, "|") != want {
		t.Errorf("outcomes = %q, want %q", strings.Join(got, "|"), want)
	}
	if md := rep.Markdown(); !strings.Contains(md, "| adopted | 1 |") || !strings.Contains(md, "| manual | 1 |") {
		t.Errorf("the totals do not count them:\n%s", md)
	}
}
