package stagetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// scriptCase is a Script stage with a case whose `run:` expectation leaves
// a file beside the case's copy when it runs.
const scriptCase = `
-- CLAUDE.md --
# Notes
-- pipeline/01-s/CONTEXT.md --
# Stage: 01-s

## Script
printf 'ok\n' > "$ICM_OUTPUT/a.md"

## Outputs
- a.md -> output/
-- pipeline/01-s/tests/one.md --
# Case: one

## Expect
- contains "ok"
- run: touch case-check-ran
`

// A job asks the permit the backend makes for its copy, as what each
// command is: the Script stage as a Script, the case's `run:` as a test
// case check, both in the copy. Refused, the case's check does not run
// and fails saying why.
func TestAJobAsksItsCopysPermit(t *testing.T) {
	ws, err := workspace.Open(wstest.Write(t, scriptCase), nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{Dir: ws.Root})
	if err != nil || len(sel) != 1 {
		t.Fatalf("selected %d cases: %v", len(sel), err)
	}
	var mu sync.Mutex
	var asked []act.Action
	var copies []string
	permit := func(cp *workspace.Workspace) act.Permit {
		copies = append(copies, cp.Root)
		return act.PermitFunc(func(a act.Action) error {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, a)
			if a.Kind == act.CaseCheck {
				return errors.New("the case's check is not trusted")
			}
			return nil
		})
	}
	rep := New(ws, Backend{Permit: permit}, Options{Keep: true}).Run(context.Background(), sel)
	r := rep.Results[0]
	if len(copies) != 1 || copies[0] == ws.Root || r.Copy != copies[0] {
		t.Fatalf("the permit was made for %v, want the job's copy %s", copies, r.Copy)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(r.Copy)) })
	if r.Status != report.TestFailed || !strings.Contains(r.FirstFailure, "not trusted") {
		t.Errorf("status %s, first failure %q: want the refused case check", r.Status, r.FirstFailure)
	}
	kinds := map[act.Kind]string{}
	for _, a := range asked {
		kinds[a.Kind] = a.Dir
	}
	stage := filepath.Join(r.Copy, "pipeline", "01-s")
	if kinds[act.Script] != stage || kinds[act.CaseCheck] != stage {
		t.Errorf("asked %+v, want the Script stage and the case's check, each in %s", asked, stage)
	}
	if _, err := os.Stat(filepath.Join(stage, "case-check-ran")); err == nil {
		t.Error("the refused case check ran")
	}
}
