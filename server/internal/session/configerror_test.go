package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestAModelTypoKeepsTheApproval: after a typo in config.toml's model,
// the status the editor asks for (knowing the server's models) shows the
// approved stage as a config error with its approval kept and the likely
// name; without the server's list (the CLI) it is stale as before.
func TestAModelTypoKeepsTheApproval(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "config-model"}}})
	srv.Default(ollamatest.Text("done"))
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	s := Open(ws, Options{Settings: Settings{Host: srv.URL()}})
	defer s.Close()
	r, err := s.Runs().New(RunRequest{Stage: "01-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reviews().Approve(context.Background(), "01-a", ApproveRequest{}); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(ws.Root, "config.toml")
	text, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(text), `"config-model"`, `"config-modl"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ws2, err := workspace.Open(ws.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2 := Open(ws2, Options{Settings: Settings{Host: srv.URL()}})
	defer s2.Close()
	p, _, err := s2.StatusWith(&ModelFacts{Installed: []string{"config-model"}, Known: true})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Stages[0]
	if a.Status != state.ConfigError || a.Kept != state.Approved || !strings.Contains(a.Reason, `has no model "config-modl" (did you mean config-model?)`) {
		t.Errorf("01-a: %s kept %q (%s)", a.Status, a.Kept, a.Reason)
	}
	plain, _, _ := s2.Status()
	if plain.Stages[0].Status != state.Stale {
		t.Errorf("without the server's list 01-a is %s, want stale", plain.Stages[0].Status)
	}
}
