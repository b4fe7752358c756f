package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestRunsViewShowsWhoApprovedAndWhy: a stage's node in icm.runs carries
// its approval in the words `icm history` prints (who approved and the
// note), on the run whose outputs were approved and on no other. Before,
// the Runs view could not show an approval's reviewer or note: icm.runs
// did not send them.
func TestRunsViewShowsWhoApprovedAndWhy(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n"))
	first := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	second := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	note := "the objectives match the brief"
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "note": note}); err != nil {
		t.Fatal(err)
	}
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct {
			ID     string
			Stages []struct{ Stage, Approval string }
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Runs) != 2 {
		t.Fatalf("runs = %s (%v)", raw, err)
	}
	got := map[string]string{}
	for _, run := range r.Runs {
		if len(run.Stages) != 1 {
			t.Fatalf("run %s has %d stages: %s", run.ID, len(run.Stages), raw)
		}
		got[run.ID] = run.Stages[0].Approval
	}
	if a := got[second.RunID]; !strings.HasPrefix(a, "approved by ") || !strings.HasSuffix(a, ": "+note) {
		t.Errorf("the approved run's stage says %q, want \"approved by NAME: %s\"", a, note)
	}
	if a := got[first.RunID]; a != "" {
		t.Errorf("the earlier run, whose outputs were not approved, says %q", a)
	}
}
