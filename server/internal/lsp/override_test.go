package lsp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	icmsession "github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestOverrideRunReadsInTheEditor: a stage run once with a one-off model
// (icm run --model, through the session as the CLI calls it) reads in
// the editor as the configured settings judge it, awaiting review and
// then approved by the editor's plain Approve, with the model that wrote
// it told: "ran with X (configured: Y)". Before, the editor showed it
// stale, and its Approve was refused.
func TestOverrideRunReadsInTheEditor(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "qwen3.5:9b", ContextLength: 8192}, {Name: "big:32b", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("1. Install Ollama.\n2. Pull a small model.\n"))
	dir := wstest.Copy(t, "course-research")
	trusttest.Grant(t, dir)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := icmsession.Open(ws, icmsession.Options{Settings: icmsession.Settings{Host: srv.URL()}, Self: icmBin})
	run, err := sess.Runs().New(icmsession.RunRequest{Stage: "01-scope", Model: "big:32b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Execute(context.Background()); err != nil {
		t.Fatalf("the override run: %v", err)
	}
	sess.Close()

	cfg := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	cfg.Options.Self = icmBin
	e := lsptest.Start(t, cfg)
	face := func() (string, string) {
		raw, err := e.ExecuteCommand("icm.status", map[string]any{"workspace": dir})
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Workspaces []struct {
				Stages []struct {
					Name, Status string
					Face         struct{ Label, Detail string }
				}
			}
		}
		if err := json.Unmarshal(raw, &st); err != nil || len(st.Workspaces) != 1 {
			t.Fatalf("icm.status: %s (%v)", raw, err)
		}
		for _, s := range st.Workspaces[0].Stages {
			if s.Name == "01-scope" {
				return s.Status, s.Face.Label + " · " + s.Face.Detail
			}
		}
		t.Fatalf("no 01-scope in %s", raw)
		return "", ""
	}
	if status, text := face(); status != "awaiting-review" || text != "awaiting review · ran with big:32b (configured: qwen3.5:9b)" {
		t.Errorf("before approval: %s, %q", status, text)
	}
	if _, err := e.ExecuteCommand("icm.approveStage", map[string]any{"workspace": dir, "stage": "01-scope"}); err != nil {
		t.Fatalf("the editor's plain approve: %v", err)
	}
	if status, text := face(); status != "approved" || text != "approved · ran with big:32b (configured: qwen3.5:9b)" {
		t.Errorf("after approval: %s, %q", status, text)
	}
}
