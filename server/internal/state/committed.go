package state

import (
	"time"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// The answers to the question a workspace whose outputs were committed
// with it asks at its first run.
const (
	// KeepCommitted keeps them as approved, recorded as adopted.
	KeepCommitted = "adopt"
	// RegenerateCommitted runs their stages again in their turn, the
	// committed files kept in history.
	RegenerateCommitted = "regenerate"
)

// RegenerateFile, in a stage's state folder, records that the person
// chose to regenerate the outputs committed with the workspace: the
// stage runs again in its turn, and the committed files are kept in
// history when it does.
const RegenerateFile = "regenerate.json"

// Regenerate is that choice.
type Regenerate struct {
	Version int       `json:"version"`
	Stage   string    `json:"stage"`
	At      time.Time `json:"at"`
	// By is who chose ("user", or an agent's AgentPrefix name).
	By string `json:"by"`
	// Outputs are the committed files as they were then: once they
	// change, the choice is about other files and no longer holds.
	Outputs Hashes `json:"outputs"`
}

// ReadRegenerate reads a stage's choice to regenerate its committed
// outputs; nil when there is none.
func ReadRegenerate(root *workspace.Root, stageDir string) (*Regenerate, error) {
	var r Regenerate
	ok, err := readJSON(root, stateFile(stageDir, RegenerateFile), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// WriteRegenerate records the choice atomically.
func WriteRegenerate(root *workspace.Root, stageDir string, r *Regenerate) error {
	r.Version = FormatVersion
	return writeJSON(root, stateFile(stageDir, RegenerateFile), r)
}

// ClearRegenerate removes the choice once a run has regenerated the
// outputs (its record says so from then on).
func ClearRegenerate(root *workspace.Root, stageDir string) error {
	return root.Remove(stateFile(stageDir, RegenerateFile))
}
