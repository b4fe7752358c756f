package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The editor asks once about outputs committed with the workspace: a run
// of a stage holding them ends with the question as its error, whose
// fixes are the two answers; running again with committed "adopt" keeps
// them as approved and runs nothing over them.
func TestTheEditorAsksAboutCommittedOutputs(t *testing.T) {
	s := newSession(t)
	writeFile(t, s.dir, "pipeline/01-scope/output/objectives.md", "1. The author's objective.\n")
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	var f struct {
		OK    bool
		Error *struct {
			Kind    string `json:"kind"`
			Actions []struct {
				ID    string `json:"id"`
				Title string `json:"title"`
				Stage string `json:"stage"`
			} `json:"actions"`
		} `json:"error"`
	}
	if err := json.Unmarshal(s.AwaitNotification("icm/runFinished", "the run asks", nil), &f); err != nil {
		t.Fatal(err)
	}
	if f.OK || f.Error == nil || len(f.Error.Actions) != 2 || f.Error.Actions[0].ID != "adopt" || f.Error.Actions[1].ID != "regenerate" || f.Error.Actions[0].Stage != "01-scope" {
		t.Fatalf("runFinished = %+v", f)
	}
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "committed": "adopt"}); err != nil {
		t.Fatal(err)
	}
	s.AwaitNotification("icm/statusChanged", "adopted", stageIs("01-scope", "approved"))
	if data, _ := os.ReadFile(filepath.Join(s.dir, "pipeline/01-scope/output/objectives.md")); string(data) != "1. The author's objective.\n" {
		t.Errorf("the adopted output changed: %q", data)
	}
}
