package stagetest

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// makeCopy makes the copy a job of sel runs in, and returns it with the
// folder to remove.
func makeCopy(t *testing.T, src *workspace.Workspace, sel *report.TestCase) (*workspace.Workspace, string) {
	t.Helper()
	cp, top, _, err := isolate(src, sel.Stage, sel.Contract, sel.Case)
	if err != nil {
		t.Fatal(err)
	}
	return cp, top
}
