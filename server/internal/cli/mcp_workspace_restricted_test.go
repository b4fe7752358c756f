package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// namesNothing is a workspace that names nothing to run, contact or
// read: it needs nobody's trust.
const namesNothing = `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "m"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write one line.

## Verify
- non-empty

## Outputs
- a.md -> output/
-- pipeline/02-b/CONTEXT.md --
# Stage: 02-b

## Process
Write one line.

## Outputs
- b.md -> output/
-- pipeline/03-c/CONTEXT.md --
# Stage: 03-c

## Process
Write one line.

## Outputs
- c.md -> output/
`

// TestRestrictedIsReadOnlyWhateverTheWorkspaceNames: --restricted is
// read-only before it is a question of trust. On a workspace that names
// nothing to run, contact or read (so it needs nobody's trust) every
// tool that acts is refused (workspaceToolTrust classifies each): it
// takes no outputs, runs no stage, approves nothing (even where the
// person's own settings let agents approve) and keeps no review note;
// nothing is written. Served without --restricted, the same workspace takes the
// outputs, so the refusals were the flag's.
func TestRestrictedIsReadOnlyWhateverTheWorkspaceNames(t *testing.T) {
	dir := wstest.Write(t, namesNothing)
	vars := agentVars(t)
	if out, errOut, _ := runAsUser(t, dir, vars, "trust", "--show"); !strings.Contains(out, "needs no trust") {
		t.Fatalf("the workspace is meant to name nothing:\n%s%s", out, errOut)
	}
	if err := os.WriteFile(filepath.Join(vars["ICM_CONFIG_DIR"], "settings.toml"), []byte("[agents]\napprove = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stage := filepath.Join(dir, "pipeline", "01-a")

	ro := startMCP(t, dir, vars, "ro", nil, "mcp", "workspace", "--restricted")
	callEveryTool(t, ro, "read-only while Restricted Mode is on")
	for _, p := range []string{filepath.Join(stage, "output", "a.md"), filepath.Join(stage, ".icm"), filepath.Join(dir, "history")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a read-only server left %s", p)
		}
	}

	// Without the flag the workspace takes the outputs: it needs no trust.
	rw := startMCP(t, dir, vars, "rw", nil, "mcp", "workspace")
	text, isErr := rw.tool("probe", map[string]any{"stage": "01-a"})
	if isErr {
		t.Fatal(text)
	}
	if text, isErr := rw.tool("submit_outputs", map[string]any{"stage": "01-a", "context_id": decodeProbe(t, text).ContextID,
		"files": []any{map[string]any{"path": "output/a.md", "content": "A.\n"}}}); isErr {
		t.Fatalf("without --restricted the outputs were refused: %s", text)
	}
	// A stage awaiting review, asked about read-only by a client that can
	// ask its person. (Started last: every stdio server of this process
	// shares one client session.)
	ro = startMCP(t, dir, vars, "ro", map[string]any{"elicitation": map[string]any{}}, "mcp", "workspace", "--restricted")
	ro.answer = func(string, map[string]any) any {
		return map[string]any{"action": "accept", "content": map[string]any{"verdict": "looks right"}}
	}
	text, _ = ro.tool("request_review", map[string]any{"stage": "01-a"})
	if !strings.Contains(text, "not kept") {
		t.Errorf("read-only, the person's answer was said to be kept:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(stage, ".icm", "review-note.json")); err == nil {
		t.Error("a read-only server kept a review note")
	}
	if text, isErr := ro.tool("approve_stage", map[string]any{"stage": "01-a"}); !isErr || !strings.Contains(text, "Restricted Mode") {
		t.Errorf("a stage awaiting review was approved read-only (isError %v): %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(stage, ".icm", "approval.json")); err == nil {
		t.Error("a read-only server approved a stage")
	}
}
