package state

import (
	"time"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// ReviewNoteFile keeps, inside a stage's .icm/, what the person said when
// an agent asked them to review the stage's outputs.
const ReviewNoteFile = "review-note.json"

// ReviewNote is a person's answer to an agent's request for review. It is
// a note for the record, never an approval: approving is a separate act
// of the person's (icm approve, the editor's Approve).
type ReviewNote struct {
	Version int       `json:"version"`
	Stage   string    `json:"stage"`
	Time    time.Time `json:"time"`
	// RunID is the run whose outputs were under review.
	RunID string `json:"run_id,omitempty"`
	// Asker is the agent that asked (AgentPrefix and its name).
	Asker string `json:"asked_by"`
	// Action is the person's answer to the request: accept (they
	// answered), decline or cancel.
	Action string `json:"action"`
	// Verdict and Note are what they wrote, when they answered.
	Verdict string `json:"verdict,omitempty"`
	Note    string `json:"note,omitempty"`
}

// ReadReviewNote reads a stage's last review note; nil when there is none.
func ReadReviewNote(root *workspace.Root, stageDir string) (*ReviewNote, error) {
	var n ReviewNote
	ok, err := readJSON(root, stateFile(stageDir, ReviewNoteFile), &n)
	if !ok || err != nil {
		return nil, err
	}
	return &n, nil
}

// MaxReviewNote bounds a review note's text in bytes; maxNoteName bounds
// its verdict, action and asker. What a client sends back is clipped to
// them before it is kept.
const (
	MaxReviewNote = 8 << 10
	maxNoteName   = 128
)

// WriteReviewNote writes a stage's review note atomically, its fields
// clipped to their bounds.
func WriteReviewNote(root *workspace.Root, stageDir string, n *ReviewNote) error {
	n.Version = FormatVersion
	n.Note = clipNote(n.Note, MaxReviewNote)
	n.Verdict, n.Action, n.Asker = clipNote(n.Verdict, maxNoteName), clipNote(n.Action, maxNoteName), clipNote(n.Asker, maxNoteName)
	return writeJSON(root, stateFile(stageDir, ReviewNoteFile), n)
}

// clipNote cuts s to at most max bytes on a character boundary, marking
// the cut with an ellipsis.
func clipNote(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = "…"
	cut := max - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
