package state

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// ToolResultsFile keeps, inside a stage's .icm/, the text of what the
// tools of the stage's last good run returned: what the model read, so
// that what its output rests on can be worked out after the run, and again
// after a person edits the output. It is replaced with the run record,
// and it belongs to the record whose RunID it holds.
const ToolResultsFile = "tool-results.json"

// Bounds on what is kept of a run's tool results. A result is kept up to
// MaxToolResultText bytes (the cut is marked), and a run keeps results up
// to MaxToolResultsBytes in all; what does not fit is counted, not kept.
const (
	MaxToolResultText   = 256 << 10
	MaxToolResultsBytes = 8 << 20
)

// ToolResults are the texts a run's tool calls returned to the model.
type ToolResults struct {
	Version int          `json:"version"`
	Stage   string       `json:"stage"`
	RunID   string       `json:"run_id"`
	Results []ToolResult `json:"results"`
	// Dropped counts the results past MaxToolResultsBytes, not kept.
	Dropped int `json:"dropped,omitempty"`
	// used is the bytes Results hold, for the bound.
	used int
}

// ToolResult is one tool call that worked and the text it returned.
type ToolResult struct {
	// Item is the For each item's title ("" for a stage without one),
	// Index its place (1-based; 0 for none), as the trace numbers it.
	Item  string `json:"item,omitempty"`
	Index int    `json:"index,omitempty"`
	// Call numbers the call within its loop, as the trace does.
	Call int `json:"call"`
	// Name is the name the model called; Server and Tool what it maps to.
	Name   string `json:"name"`
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Args are the call's arguments, as JSON.
	Args string `json:"args,omitempty"`
	// Text is what the model was given back, up to MaxToolResultText.
	Text string `json:"text"`
	// Size is the text's size before the cut; Cut says there was one.
	Size int  `json:"size"`
	Cut  bool `json:"cut,omitempty"`
}

// Add keeps one result within the bounds.
func (t *ToolResults) Add(r ToolResult) {
	r.Size = len(r.Text)
	if len(r.Text) > MaxToolResultText {
		r.Text, r.Cut = clipNote(r.Text, MaxToolResultText), true
	}
	if t.used+len(r.Text)+len(r.Args) > MaxToolResultsBytes {
		t.Dropped++
		return
	}
	t.used += len(r.Text) + len(r.Args)
	t.Results = append(t.Results, r)
}

// ReadToolResults reads the tool results kept with a stage's last good
// run; nil when the stage kept none or when they belong to another run
// than runID (a record written before icm kept them).
func ReadToolResults(root *workspace.Root, stageDir, runID string) (*ToolResults, error) {
	var t ToolResults
	ok, err := readJSON(root, stateFile(stageDir, ToolResultsFile), &t)
	if !ok || err != nil || t.RunID != runID {
		return nil, err
	}
	return &t, nil
}

// WriteToolResults writes the tool results of a stage's run atomically,
// replacing the last run's.
func WriteToolResults(root *workspace.Root, stageDir string, t *ToolResults) error {
	t.Version = FormatVersion
	if t.Results == nil {
		t.Results = []ToolResult{}
	}
	if err := writeJSON(root, stateFile(stageDir, ToolResultsFile), t); err != nil {
		return fmt.Errorf("unable to keep the tool results of %s: %w", t.Stage, err)
	}
	return nil
}
