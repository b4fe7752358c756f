package lsp_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// One fact, one way of saying it (docs/vocabulary.md), wherever the
// editor shows it.

// TestAnEstimateReadsTheSameInTheLensAndTheHover: a stage's context of
// 1,201 estimated tokens is "~1.2k tokens" on its lens and at the head of
// its hover. Before, the hover said "~1201 tokens".
func TestAnEstimateReadsTheSameInTheLensAndTheHover(t *testing.T) {
	s := newSession(t)
	s.Open(research)
	s.AwaitDiagnostics(research, "analysed", func([]lsptest.Diagnostic) bool { return true })
	var ls []lens
	s.Await("a lens with the estimate", func() bool {
		ls = nil
		return s.TextDocumentCall("textDocument/codeLens", research, nil, &ls) == nil && strings.Contains(strings.Join(titles(ls), " | "), "tokens")
	})
	estimate := regexp.MustCompile(`~[\d.]+k? tokens`).FindString(strings.Join(titles(ls), " | "))
	if !regexp.MustCompile(`^~\d\.\dk tokens$`).MatchString(estimate) {
		t.Fatalf("the lens's estimate %q (lenses %q): the fixture's context is no longer over a thousand tokens", estimate, titles(ls))
	}
	got, err := s.Hover(research, s.Pos(research, "# Stage", 0))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(got, "\n")
	if !strings.Contains(head, "· "+estimate+" (system ~") {
		t.Errorf("the hover's head %q does not say %q as the lens does", head, estimate)
	}
}

// TestARefusedRunIsRefusedEverywhere: a run the model server turns away
// before any work is "refused" in icm/runFinished's outcome (the notice's
// word) and in the Runs view. Before, the notice said it failed.
func TestARefusedRunIsRefusedEverywhere(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Fail(400, "this model does not support tools"))
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	var f struct {
		OK      bool
		RunID   string
		Outcome string
	}
	if err := json.Unmarshal(s.AwaitNotification("icm/runFinished", "the run ends", nil), &f); err != nil {
		t.Fatal(err)
	}
	if got := runStatus(t, s, f.RunID); f.OK || got != "refused" || f.Outcome != got {
		t.Errorf("runFinished says %q, the Runs view %q; want refused in both", f.Outcome, got)
	}
	// The run's progress ends on the same word.
	vals := progressValues(s, "icm-run-"+f.RunID)
	if len(vals) == 0 || vals[len(vals)-1]["kind"] != "end" || vals[len(vals)-1]["message"] != "refused" {
		t.Errorf("the progress ends with %v", vals)
	}
}

// vocabulary is the shared table (docs/vocabulary.md).
type vocabulary struct {
	Outcome []struct{ Status, Means string }
	State   []struct{ Status, Label, Means string }
}

func readVocabulary(t *testing.T) vocabulary {
	t.Helper()
	data, err := os.ReadFile("../human/testdata/table.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vocabulary
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Outcome) == 0 || len(v.State) == 0 {
		t.Fatal("the table lost its outcomes or states")
	}
	return v
}

// TestTheLegendAndTheOutcomesAreTheVocabularys: icm.status's legend is
// the table's stage states, in order, in the faces' words; a run ends in
// the table's outcomes.
func TestTheLegendAndTheOutcomesAreTheVocabularys(t *testing.T) {
	v := readVocabulary(t)
	s := newSession(t)
	raw, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		States []struct{ Status, Label, Icon, Means string }
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.States) != len(v.State) {
		t.Fatalf("the legend has %d states, the vocabulary %d: %s", len(r.States), len(v.State), raw)
	}
	for i, want := range v.State {
		if got := r.States[i]; got.Status != want.Status || got.Label != want.Label || got.Means != want.Means || got.Icon == "" {
			t.Errorf("state %d: %+v, want %+v", i, got, want)
		}
	}
	var outcomes []string
	for _, o := range v.Outcome {
		outcomes = append(outcomes, o.Status)
	}
	if got := []string{report.RunDone, report.RunFailed, report.RunRefused, report.RunCancelled, report.RunRunning, report.RunStopped}; strings.Join(got, " ") != strings.Join(outcomes, " ") {
		t.Errorf("a run ends %q, the vocabulary says %q", got, outcomes)
	}
	// icm.runs sends the outcomes' legend: the same words and meanings.
	raw, err = s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Outcomes []struct{ Status, Means string }
	}
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs.Outcomes) != len(v.Outcome) {
		t.Fatalf("icm.runs tells %d outcomes, the vocabulary %d", len(runs.Outcomes), len(v.Outcome))
	}
	for i, want := range v.Outcome {
		if runs.Outcomes[i] != want {
			t.Errorf("outcome %d: %+v, want %+v", i, runs.Outcomes[i], want)
		}
	}
}

// TestARunsFiguresComeInWords: the server sends the words beside the
// figures (the Runs view's duration and tokens, the last run's line, the
// context as the lens says it), so no client words them again.
func TestARunsFiguresComeInWords(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n"))
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	raw, err := s.ExecuteCommand("icm.runs", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Runs []struct {
			DurationMs                 int64
			PromptTokens, OutputTokens int
			Duration, Tokens, Tools    string
		}
	}
	if err := json.Unmarshal(raw, &runs); err != nil || len(runs.Runs) != 1 {
		t.Fatalf("runs: %s %v", raw, err)
	}
	run := runs.Runs[0]
	// durationMs is whole milliseconds cut down; the words round the
	// duration itself.
	ms := time.Duration(run.DurationMs) * time.Millisecond
	if run.Duration != human.Duration(ms) && run.Duration != human.Duration(ms+time.Millisecond) || run.Tokens != human.InOut(run.PromptTokens, run.OutputTokens) || run.Tools != "" {
		t.Errorf("the run's words: %+v", run)
	}
	raw, err = s.ExecuteCommand("icm.status", map[string]any{"workspace": s.dir})
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Workspaces []struct {
			Stages []struct {
				Name, Context string
				Tokens        int
				LastRunStats  *struct {
					PromptTokens, OutputTokens int
					Text                       string
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	scope := st.Workspaces[0].Stages[0]
	if scope.Context != human.Estimate(scope.Tokens) || scope.LastRunStats == nil ||
		!strings.HasPrefix(scope.LastRunStats.Text, human.InOut(scope.LastRunStats.PromptTokens, scope.LastRunStats.OutputTokens)+" · ") ||
		!strings.HasSuffix(scope.LastRunStats.Text, " · qwen3.5:9b · 1 model call") {
		t.Errorf("01-scope's words: context %q for %d tokens, last run %+v", scope.Context, scope.Tokens, scope.LastRunStats)
	}
}
