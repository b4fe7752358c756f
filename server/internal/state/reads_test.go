package state

import (
	"slices"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The files the identity brings in are read by every run: the file a
// pointer CLAUDE.md leads to, and what an `@` line includes.
func TestReadsHoldWhatTheIdentityBringsIn(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
Read `+"`AGENTS.md`"+` and follow it.
-- AGENTS.md --
# Agents
@rules.md
-- rules.md --
Be brief.
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a
## Process
Go.
## Outputs
- a.md -> output/
`)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := ws.Stage("01-a")
	reads := Reads(ws, st, contracts(t, ws)["01-a"])
	for _, want := range []string{"CLAUDE.md", "AGENTS.md", "rules.md"} {
		if !slices.Contains(reads, want) {
			t.Errorf("Reads = %v, lacks %s", reads, want)
		}
	}
}
