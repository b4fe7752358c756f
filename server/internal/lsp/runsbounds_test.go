package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsViewListsEveryRunPastAHostileTrace: the Runs view lists each
// run from its summary, so a trace with a line past the cap (17 MB) and
// 5,000 calls lists beside the others, with its tree cut to a thousand
// lines that say what they leave out. Failed before: icm.runs failed
// ("token too long") and the view showed no run.
func TestRunsViewListsEveryRunPastAHostileTrace(t *testing.T) {
	s := newSession(t)
	hist := filepath.Join(s.dir, "history")
	if err := os.MkdirAll(hist, 0o755); err != nil {
		t.Fatal(err)
	}
	model := func(call int) string {
		return fmt.Sprintf(`{"kind":"model","time":"2026-12-01T10:00:%02dZ","stage":"01-scope","model":{"Call":%d,"Model":"tiny","PromptTokens":1,"OutputTokens":1}}`+"\n", call%60, call)
	}
	var hostile strings.Builder
	hostile.WriteString(`{"kind":"tool","stage":"01-scope","tool":{"Args":{"a":"` + strings.Repeat("x", 17<<20) + `"}}}` + "\n")
	for i := 1; i <= 5000; i++ {
		hostile.WriteString(model(i))
	}
	for name, text := range map[string]string{"20261201-100000-aaaaaa": model(1), "20261201-100100-bbbbbb": hostile.String()} {
		if err := os.WriteFile(filepath.Join(hist, name+".jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Runs []struct {
			ID     string
			Stages []struct {
				Text     string
				Children []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 2 {
		t.Fatalf("%d runs listed, want 2", len(r.Runs))
	}
	for _, run := range r.Runs {
		if run.ID == "20261201-100100-bbbbbb" && (len(run.Stages[0].Children) > 1000 || !strings.Contains(run.Stages[0].Text, "more calls not shown")) {
			t.Errorf("the hostile run's tree: %d calls, %q", len(run.Stages[0].Children), run.Stages[0].Text)
		}
	}
}
