package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// stageFace is a stage's row of an icm/statusChanged: its status and face.
type stageFace struct {
	Name, Status string
	Face         struct{ Label, Detail string }
}

// faceOf is the named stage's row of an icm/statusChanged, or false.
func faceOf(raw json.RawMessage, stage string) (stageFace, bool) {
	var ws struct{ Stages []stageFace }
	if json.Unmarshal(raw, &ws) != nil {
		return stageFace{}, false
	}
	for _, s := range ws.Stages {
		if s.Name == stage {
			return s, true
		}
	}
	return stageFace{}, false
}

// TestAnOutputAwaitingReviewStaysSoWhenItsContractBreaks: issue 34 (7).
// A run ends "awaits review"; a person saves an error into the contract
// (while the stage ran, or after). The output has not been reviewed and
// is there to review: the state stays "awaiting review" with Approve, the
// error told beside it, where it used to turn "has errors" with no
// Approve. The contract changed since the run read it, so the output is
// stale too: approving takes "as it is", which the refusal offers.
func TestAnOutputAwaitingReviewStaysSoWhenItsContractBreaks(t *testing.T) {
	s := newSession(t)
	s.ollama.Default(ollamatest.Text("1. Install Ollama on a laptop.\n2. Pull a small model.\n"))
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	s.AwaitNotification("icm/statusChanged", "awaiting review", stageIs("01-scope", "awaiting-review"))

	s.Open(scope)
	s.Edit(scope, "- Layer 4 (working): input.md", "- Layer 4 (working): input.md\n- Layer 3 (reference): missing-notes.md")
	if err := os.WriteFile(filepath.Join(s.dir, scope), []byte(s.Text(scope)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Save(scope)
	s.AwaitDiagnostics(scope, "the broken input", lsptest.HasCode("input-missing"))
	raw := s.AwaitNotification("icm/statusChanged", "the error in 01-scope's state", func(raw json.RawMessage) bool {
		st, ok := faceOf(raw, "01-scope")
		return ok && strings.Contains(st.Face.Detail, "missing-notes.md")
	})
	st, _ := faceOf(raw, "01-scope")
	if st.Status != "awaiting-review" || st.Face.Label != "awaiting review" || !strings.Contains(st.Face.Detail, "its contract has errors") {
		t.Errorf("01-scope after its contract broke: %+v", st)
	}
	const out = "pipeline/01-scope/output/objectives.md"
	s.Open(out)
	if got := lensTitles(t, s, out); got != "awaiting review | ✓ Approve" {
		t.Errorf("the output's lenses: %q", got)
	}
	if got := lensTitles(t, s, scope); !strings.HasPrefix(got, "✓ Approve | awaiting review") {
		t.Errorf("the contract's lenses: %q", got)
	}
	_, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"})
	re, _ := lsptest.AsReplyError(err)
	if !isKind(err, "stale") || !strings.Contains(string(re.Data), "approve-anyway") {
		t.Fatalf("approving the stale output: %v %s", err, re.Data)
	}
	if _, err := s.ExecuteCommand("icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope", "force": true, "note": "the contract is mid-edit; the objectives stand"}); err != nil {
		t.Fatalf("approving it as it is: %v", err)
	}
	// Reviewed, it is what it is: a stage whose contract must be fixed.
	s.AwaitNotification("icm/statusChanged", "has errors", stageIs("01-scope", "invalid"))
}
