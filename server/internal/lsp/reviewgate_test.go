package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestReviewFactsInTheEditor: a stage with a rubric and a Review Gate
// sends both where a person reviews: the run's end (the notice), the
// stage's status row (the Pipeline view and the lens, through the face)
// and the hover on the output's first line, where its lenses stand.
func TestReviewFactsInTheEditor(t *testing.T) {
	s := newSession(t)
	contract := filepath.Join(s.dir, "pipeline/01-scope/CONTEXT.md")
	src, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	gate := "## Review Gate\n- Each objective starts with a verb.\n- No objective needs a GPU.\n\n## Outputs"
	if err := os.WriteFile(contract, []byte(strings.Replace(string(src), "## Outputs", gate, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rubric := filepath.Join(s.dir, "pipeline/01-scope/references/review-rubric.md")
	if err := os.MkdirAll(filepath.Dir(rubric), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rubric, []byte("## Required Terms\n- install\n- model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n2. Run a prompt.\n"))
	before := len(s.Notifications("icm/runFinished"))
	f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	if !f.OK {
		t.Fatalf("run: %+v", f)
	}
	var end struct {
		Rubric       string   `json:"rubric"`
		RubricFailed bool     `json:"rubricFailed"`
		ReviewGate   []string `json:"reviewGate"`
	}
	all := s.Notifications("icm/runFinished")
	if err := json.Unmarshal(all[len(all)-1], &end); err != nil || len(all) <= before {
		t.Fatal(err)
	}
	const line = `1 of 2 rubric checks pass: missing term "model"`
	if end.Rubric != line || !end.RubricFailed || strings.Join(end.ReviewGate, "|") != "Each objective starts with a verb.|No objective needs a GPU." {
		t.Errorf("runFinished review facts = %+v", end)
	}
	s.AwaitNotification("icm/statusChanged", "the rubric in the status row", func(raw json.RawMessage) bool {
		var ws struct {
			Stages []struct {
				Name, Rubric string
				RubricFailed bool
				ReviewGate   []string
				Face         struct{ Detail string }
			}
		}
		if json.Unmarshal(raw, &ws) != nil {
			return false
		}
		for _, st := range ws.Stages {
			if st.Name == "01-scope" {
				return st.Rubric == line && st.RubricFailed && len(st.ReviewGate) == 2 && strings.Contains(st.Face.Detail, line)
			}
		}
		return false
	})
	const out = "pipeline/01-scope/output/objectives.md"
	s.Open(out)
	s.Await("the state lens names the rubric", func() bool {
		for _, l := range shownLenses(t, s, out) {
			if l.Line == 0 && strings.Contains(l.State, line) {
				return true
			}
		}
		return false
	})
	text, err := s.Hover(out, protocol.Position{Line: 0, Character: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Rubric: " + line, "**Review Gate** (from the contract):", "- Each objective starts with a verb.", "- No objective needs a GPU."} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
}
