package state

import (
	"testing"
)

func TestFaceOf(t *testing.T) {
	failed := &Attempt{Status: RunFailed, Error: "stage 01-a: no model server at http://127.0.0.1:11434\nmore"}
	tests := []struct {
		name    string
		s       StageState
		running bool
		want    string
		icon    string
		tone    string
	}{
		{"pending", StageState{Status: Pending, Reason: "not run yet"}, false, "pending · not run yet", "circle-large-outline", ToneInfo},
		{"approved says nothing more", StageState{Status: Approved, Reason: "approved"}, false, "approved", "pass-filled", ToneOK},
		{"approved after a failed re-run", StageState{Stage: "01-a", Status: Approved, Reason: "approved", LastFailure: failed}, false,
			"approved · last re-run failed: no model server at http://127.0.0.1:11434", "pass-filled", ToneWarning},
		{"invalid is an error", StageState{Status: Invalid, Reason: "its contract has errors"}, false,
			"has errors · its contract has errors", "circle-slash", ToneError},
		{"failed", StageState{Status: Failed, Reason: "last run failed: boom"}, false, "failed · last run failed: boom", "error", ToneError},
		// The face is the stage's own: the engine's "stage NAME: " before its error says nothing more.
		{"failed without the stage twice", StageState{Stage: "01-a", Status: Failed, Reason: "last run failed: stage 01-a: boom"}, false, "failed · last run failed: boom", "error", ToneError},
		{"tools all failed", StageState{Status: Awaiting, Reason: "output awaiting review", ToolsFailed: true, Record: &Record{ToolCalls: 3, ToolErrors: 3}}, false,
			"awaiting review · 3 of 3 tool calls failed", "eye", ToneWarning},
		{"verify", StageState{Status: Awaiting, Reason: "output awaiting review", VerifyFailed: true}, false,
			"awaiting review · Verify found problems", "eye", ToneInfo},
		{"approved after a one-off model", StageState{Status: Approved, Reason: "approved", RanWith: "big:32b", Configured: "qwen3.5:9b"}, false,
			"approved · ran with big:32b (configured: qwen3.5:9b)", "pass-filled", ToneOK},
		{"a one-off model with none configured", StageState{Status: Awaiting, Reason: "output awaiting review", RanWith: "big:32b"}, false,
			"awaiting review · ran with big:32b (configured: none)", "eye", ToneInfo},
		// An agent's work and approval are shown apart from a person's.
		{"handed in by an agent", StageState{Status: Awaiting, Reason: "output awaiting review", WrittenBy: "agent:claude-code"}, false,
			"awaiting review · written by agent:claude-code over MCP", "eye", ToneInfo},
		{"approved by an agent", StageState{Status: Approved, Reason: "approved by agent:claude-code, not by a person", WrittenBy: "agent:claude-code", Approval: &Approval{By: "agent:claude-code"}}, false,
			"approved · approved by agent:claude-code, not by a person · written by agent:claude-code over MCP", "pass", ToneInfo},
		{"approved by a person", StageState{Status: Approved, Reason: "approved", WrittenBy: "agent:claude-code", Approval: &Approval{By: "user"}}, false,
			"approved · written by agent:claude-code over MCP", "pass-filled", ToneOK},
		{"running hides the disk state", StageState{Status: Approved, Reason: "approved", LastFailure: failed}, true, "running", "sync~spin", ToneInfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FaceOf(&tt.s, tt.running, "")
			if f.Text() != tt.want || f.Icon != tt.icon || f.Tone != tt.tone {
				t.Errorf("FaceOf = %q icon %s tone %s, want %q icon %s tone %s", f.Text(), f.Icon, f.Tone, tt.want, tt.icon, tt.tone)
			}
		})
	}
	if f := FaceOf(&StageState{Status: Running}, true, "[2/4] items done"); f.Text() != "running · [2/4] items done" {
		t.Errorf("running with a reason: %q", f.Text())
	}
}

// TestEachStateHasItsOwnIcon: a state reads at a glance, so no two share
// an icon (before, "failed" and "has errors" shared the red cross).
func TestEachStateHasItsOwnIcon(t *testing.T) {
	seen := map[string]Status{}
	for st, l := range looks {
		if other, ok := seen[l.icon]; ok {
			t.Errorf("%s and %s share the icon %s", st, other, l.icon)
		}
		seen[l.icon] = st
	}
}
