package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReviewNotesAreBounded: what a person's client sends back is kept
// within MaxReviewNote bytes (verdict and asker within a name's bound),
// cut on a character and marked, so the note is always read back.
func TestReviewNotesAreBounded(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	stage := filepath.Join(dir, "pipeline", "01-a")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", MaxReviewNote)
	n := &ReviewNote{Stage: "01-a", Asker: "agent:" + strings.Repeat("x", 500), Action: "accept", Verdict: strings.Repeat("v", 500), Note: long}
	if err := WriteReviewNote(root, stage, n); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReviewNote(root, stage)
	if err != nil || got == nil {
		t.Fatalf("read back: %v, %v", got, err)
	}
	if len(got.Note) > MaxReviewNote || !utf8.ValidString(got.Note) || !strings.HasSuffix(got.Note, "…") || !strings.HasPrefix(got.Note, "éé") {
		t.Errorf("the note is %d bytes (bound %d), valid UTF-8 %v, ends %q", len(got.Note), MaxReviewNote, utf8.ValidString(got.Note), got.Note[len(got.Note)-8:])
	}
	if len(got.Verdict) > maxNoteName || len(got.Asker) > maxNoteName {
		t.Errorf("verdict %d bytes, asker %d bytes; bound %d", len(got.Verdict), len(got.Asker), maxNoteName)
	}
	short := &ReviewNote{Stage: "01-a", Action: "accept", Verdict: "looks right", Note: "Fine."}
	if err := WriteReviewNote(root, stage, short); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadReviewNote(root, stage); got.Note != "Fine." || got.Verdict != "looks right" {
		t.Errorf("a short note changed: %+v", got)
	}
}
