package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const outlineWorkspace = `
-- CLAUDE.md --
# Outline maker
-- config.toml --
[model]
name = "m"
-- pipeline/01-outline/CONTEXT.md --
# Stage: 01-outline

## Process
Write an outline with two to five modules.

## Outputs
- outline.md -> output/

## Verify
- headings 2..5
`

// TestStatusShowsVerifyFindingsAndForgetsThemOnceFixed: icm status names
// what Verify found under the stage (it used to point at "icm status
// 01-outline", a command that does not exist), and once a person fixes
// the output and approves it, the old findings no longer show: they were
// about an output that is gone.
func TestStatusShowsVerifyFindingsAndForgetsThemOnceFixed(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("just one line"))
	dir := wstest.Write(t, outlineWorkspace)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := runAsUser(t, dir, vars, "status")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errOut)
	}
	if strings.Contains(out, "icm status 01-outline") {
		t.Errorf("status points at a command that does not exist:\n%s", out)
	}
	if !strings.Contains(out, "pipeline/01-outline/output/outline.md: 0 `##` sections; at least 2 expected") {
		t.Errorf("status does not say what Verify found:\n%s", out)
	}

	// The person fixes the outline and approves it: Verify passes now.
	fixed := "# Outline\n\n## One\n\n## Two\n"
	if err := os.WriteFile(filepath.Join(dir, "pipeline/01-outline/output/outline.md"), []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runAsUser(t, dir, vars, "approve", "01-outline"); code != 0 {
		t.Fatalf("approve the fixed outline: %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runAsUser(t, dir, vars, "status")
	if strings.Contains(out, "Verify") || strings.Contains(out, "sections") {
		t.Errorf("status still reports the old output's Verify problems:\n%s", out)
	}
}
