package state

import (
	"time"

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

// WriteReviewNote writes a stage's review note atomically.
func WriteReviewNote(root *workspace.Root, stageDir string, n *ReviewNote) error {
	n.Version = FormatVersion
	return writeJSON(root, stateFile(stageDir, ReviewNoteFile), n)
}
