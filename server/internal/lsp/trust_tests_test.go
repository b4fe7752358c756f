package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestTheTestExplorerNeedsTrust: in Restricted Mode, a workspace whose
// contracts name nothing that acts and whose stage test case runs a
// command (issue 30, item 1: the Test Explorer ran it). icm.testRun is
// refused for want of trust, and nothing runs; untrusted without
// Restricted Mode, the same.
func TestTheTestExplorerNeedsTrust(t *testing.T) {
	trusttest.ConfigDir(t)
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("one line"))
	marker := filepath.Join(t.TempDir(), "case-ran")
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
-- pipeline/01-a/tests/short.md --
# Case: short

## Expect
- run: touch `+marker+`
`)
	for _, restricted := range []bool{true, false} {
		cfg := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL(), "workspaceTrusted": !restricted}}
		cfg.Options.Self = icmBin
		e := lsptest.Start(t, cfg)
		_, err := e.ExecuteCommand("icm.testRun", map[string]any{"workspace": dir, "stage": "01-a", "token": "t"})
		if kind := errorKind(err); kind != "untrusted" {
			t.Errorf("restricted %v: icm.testRun: %v (kind %q), want a refusal for want of trust", restricted, err, kind)
			e.AwaitNotification("icm/testFinished", "the run ends", nil)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("restricted %v: the case's command ran", restricted)
		}
	}
}
