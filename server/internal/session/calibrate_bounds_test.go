package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestShippedHistoryCannotBreakCounts: a history/ shipped with the
// workspace whose trace claims 9e18 tokens for a one-token estimate
// calibrates counts by at most MaxRatio, never to 0 or a negative count.
// Failed before: the first call of the stage counted
// -9223372036854775808 tokens, which "fits" any window.
func TestShippedHistoryCannotBreakCounts(t *testing.T) {
	dir := wstest.Write(t, "-- CLAUDE.md --\n# Identity\n-- pipeline/01-a/CONTEXT.md --\n# Stage: 01-a\n## Process\nGo.\n## Outputs\n- out.md -> output/\n")
	trace := `{"kind":"model","stage":"01-a","model":{"Call":1,"Model":"m","PromptTokens":9000000000000000000,"PromptGuess":1}}` + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history", "20261201-100000-aaaaaa.jsonl"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s := Open(ws, Options{Getenv: func(string) string { return "" }})
	defer s.Close()
	got := s.Counts().calibration("m").Apply("01-a", tokens.Count{Tokens: 900, Method: tokens.Estimated})
	if got.Tokens < 1 || got.Tokens > 900*promptcount.MaxRatio {
		t.Errorf("900 estimated tokens calibrate to %d", got.Tokens)
	}
}
