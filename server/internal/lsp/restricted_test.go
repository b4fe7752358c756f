package lsp_test

import (
	"encoding/json"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestRestrictedModeHoldsAWorkspaceThatNamesNothing: the editor's
// Restricted Mode is decided before whether a workspace needs trust
// (issue 30), so a workspace that names nothing to run, contact or read
// is held read-only too: its trust reads "restricted" and running a
// stage is refused as untrusted. Out of Restricted Mode the same
// workspace needs no trust.
func TestRestrictedModeHoldsAWorkspaceThatNamesNothing(t *testing.T) {
	trusttest.ConfigDir(t)
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "m"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write one line.

## Outputs
- a.md -> output/
`)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	e := lsptest.Start(t, lsptest.Config{Root: dir, InitOptions: map[string]any{"workspaceTrusted": false}})
	state := func() string {
		t.Helper()
		raw, err := e.ExecuteCommand("icm.trustList", map[string]any{"workspace": dir})
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			State   string
			Allowed bool
			Parts   []any
		}
		if err := json.Unmarshal(raw, &list); err != nil || len(list.Parts) != 0 {
			t.Fatalf("icm.trustList = %s, %v: the workspace is meant to name nothing", raw, err)
		}
		return list.State
	}
	if s := state(); s != "restricted" {
		t.Errorf("in Restricted Mode the trust reads %q, want restricted", s)
	}
	if _, err := e.ExecuteCommand("icm.runStage", map[string]any{"workspace": dir, "stage": "01-a"}); errorKind(err) != "untrusted" {
		t.Errorf("a run in Restricted Mode: %v", err)
	}
	e.Notify("icm/didChangeWorkspaceTrust", map[string]any{"trusted": true})
	if s := state(); s != "not-needed" {
		t.Errorf("out of Restricted Mode the trust reads %q, want not-needed", s)
	}
}
