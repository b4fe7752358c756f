package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// stageStatus asks icm.status for one stage's status and reason.
func stageStatus(t *testing.T, s *session, stage string) (string, string) {
	t.Helper()
	raw, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Workspaces []struct {
			Stages []struct{ Name, Status, Reason string }
		}
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Workspaces) != 1 {
		t.Fatalf("icm.status = %s, %v", raw, err)
	}
	for _, st := range res.Workspaces[0].Stages {
		if st.Name == stage {
			return st.Status, st.Reason
		}
	}
	t.Fatalf("no stage %s in %s", stage, raw)
	return "", ""
}

// TestModelSettingRunApproveAndClear: with icm.model set, a stage runs on
// that model and approves under it (as `icm run --model X` then the
// printed `icm approve`); clearing the setting falls back to config.toml
// at once, so the same stage now reads as stale and says why. Before the
// session layer an emptied setting kept the old model until a restart.
func TestModelSettingRunApproveAndClear(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{
		{Name: "qwen3.5:9b", ContextLength: 8192}, {Name: "llama3.1:8b", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("1. Install Ollama.\n2. Pull a small model.\n3. Ask it a question.\n"))
	dir := wstest.Copy(t, "course-research")
	trusttest.Grant(t, dir)
	cfg := lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": srv.URL(), "model": "llama3.1:8b"}}
	cfg.Options.Self = icmBin
	s := &session{Editor: lsptest.Start(t, cfg), dir: dir, ollama: srv}
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)

	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	if f := runFinished(t, s.AwaitNotification("icm/runFinished", "the stage ends", nil)); !f.OK {
		t.Fatalf("runFinished = %+v", f)
	}
	for _, r := range srv.ChatRequests() {
		if r.Model != "llama3.1:8b" {
			t.Errorf("a call went to %s, not the model setting's llama3.1:8b", r.Model)
		}
	}
	s.AwaitNotification("icm/statusChanged", "awaiting review", stageIs("01-scope", "awaiting-review"))
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatalf("approve under the same model setting: %v", err)
	}
	if st, reason := stageStatus(t, s, "01-scope"); st != "approved" {
		t.Fatalf("after approving: %s (%s)", st, reason)
	}

	// Clearing: VS Code sends the whole section, the cleared key empty or
	// left out. Either way config.toml's qwen3.5:9b is in force at once.
	for _, settings := range []map[string]any{
		{"ollamaHost": srv.URL(), "model": ""},
		{"ollamaHost": srv.URL()},
	} {
		s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"icm": settings}})
		st, reason := stageStatus(t, s, "01-scope")
		if st != "stale" || !strings.Contains(reason, "ran with llama3.1:8b") || !strings.Contains(reason, "qwen3.5:9b") {
			t.Errorf("after clearing the model with %v: %s (%s)", settings, st, reason)
		}
		// Setting it again brings the approval back: nothing was lost.
		s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"icm": map[string]any{"ollamaHost": srv.URL(), "model": "llama3.1:8b"}}})
		if st, reason := stageStatus(t, s, "01-scope"); st != "approved" {
			t.Errorf("with the setting back: %s (%s)", st, reason)
		}
	}
}
