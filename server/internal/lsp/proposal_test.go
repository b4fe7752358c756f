package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// A change a run proposes outside output/ is shown at the gate in the
// editor as the CLI shows it: the output's state lens offers it, and the
// offer opens the file as it is beside the change, read-only, that
// approving applies. Nothing changes the file before the approval.
func TestAProposedChangeIsShownBesideTheFile(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "_config/routes.md", "content": "# Routes\n\n- GET /status\n"}),
		ollamatest.Call("write_output", map[string]any{"path": "output/notes.md", "content": "# Notes\n\nThe status route.\n"})))
	srv.Default(ollamatest.Text("Wrote the routes and the notes."))
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Services
-- config.toml --
[model]
name = "m"
-- _config/routes.md --
# Routes

(none yet)
-- stages/01-routes/CONTEXT.md --
# Stage: 01-routes

## Process
List the routes and write notes on them.

## Outputs
| Artifact | Location |
|---|---|
| Routes | `+"`_config/routes.md`"+` |
| Notes | `+"`output/notes.md`"+` |
`)
	trusttest.Grant(t, dir)
	cfg := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	cfg.Options.Self = icmBin
	s := &session{Editor: lsptest.Start(t, cfg), dir: dir, ollama: srv}
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": dir, "stage": "01-routes"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}

	const notes = "stages/01-routes/output/notes.md"
	s.Open(notes)
	var offer map[string]any
	s.Await("the state lens offers the proposed change", func() bool {
		var raw []struct {
			Command struct {
				Arguments []struct {
					Actions []struct {
						Title     string           `json:"title"`
						Command   string           `json:"command"`
						Arguments []map[string]any `json:"arguments"`
					} `json:"actions"`
				} `json:"arguments"`
			} `json:"command"`
		}
		if err := s.TextDocumentCall("textDocument/codeLens", notes, nil, &raw); err != nil {
			t.Fatal(err)
		}
		for _, l := range raw {
			for _, a := range l.Command.Arguments {
				for _, act := range a.Actions {
					if act.Title == "⇄ Proposed change: _config/routes.md" && len(act.Arguments) == 1 {
						offer = act.Arguments[0]
						return true
					}
				}
			}
		}
		return false
	})
	if offer["proposal"] != true || offer["stage"] != "01-routes" {
		t.Fatalf("the offer's arguments: %v", offer)
	}

	raw, err := s.ExecuteCommand("icm.compareOutput", offer)
	if err != nil {
		t.Fatal(err)
	}
	var cmp struct{ Model, Current, Title string }
	if err := json.Unmarshal(raw, &cmp); err != nil {
		t.Fatal(err)
	}
	if cmp.Model != lsptest.URI(filepath.Join(dir, "_config/routes.md")) || cmp.Title != "routes.md: as it is ↔ proposed by 01-routes" {
		t.Errorf("the diff's sides: %+v", cmp)
	}
	raw, err = s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": cmp.Current})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Text string }
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Text != "# Routes\n\n- GET /status\n" {
		t.Errorf("the proposed side reads %q (%v)", doc.Text, err)
	}
	// A kept copy changed since the run is not what approving applies
	// (approval refuses it): it is not shown as the change either.
	kept := filepath.Join(dir, "stages/01-routes", state.StateDir, workflow.ProposedDir, "_config/routes.md")
	if err := os.WriteFile(kept, []byte("# Routes\n\n- DELETE /everything\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": cmp.Current}); err == nil {
		t.Error("a kept copy changed since the run was shown as the proposed change")
	}
	if got, err := os.ReadFile(filepath.Join(dir, "_config/routes.md")); err != nil || string(got) != "# Routes\n\n(none yet)\n" {
		t.Errorf("the file changed before any approval: %q (%v)", got, err)
	}
}
