package lsp_test

import (
	"encoding/json"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
)

// TestStatusNextWaitsForTheModelServer: with the model server down, the
// editor's status (its status bar, its notices) said "01-scope ready to
// run", as icm doctor did. Once the server was asked and did not answer,
// the next step is to start it, as icm status says.
func TestStatusNextWaitsForTheModelServer(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) { c.InitOptions = map[string]any{"ollamaHost": closedport.URL(t)} })
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", func([]lsptest.Diagnostic) bool { return true })
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("the last next step: %s", last)
		}
	}()
	s.Await("the next step waits for the model server", func() bool {
		raw, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": s.dir})
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Workspaces []struct {
				Next struct{ Stage, Action, Message string }
			}
		}
		if json.Unmarshal(raw, &st) != nil || len(st.Workspaces) != 1 {
			t.Fatalf("status = %s", raw)
		}
		next := st.Workspaces[0].Next
		last = next.Action + ": " + next.Message
		return next.Action == "start-server" && next.Stage == "01-scope"
	})
}
