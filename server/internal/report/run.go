package report

import (
	"time"

	"github.com/icm-tool/icm/server/internal/state"
)

// StageResult is what one stage run did.
type StageResult struct {
	Stage   string               `json:"stage"`
	Status  string               `json:"status"`
	Outputs []string             `json:"outputs"`
	Verify  []state.VerifyResult `json:"verify,omitempty"`
	// Rubric are the checks of the stage's review rubrics, notes included.
	Rubric []state.RubricCheck `json:"rubric,omitempty"`
	// ReviewGate is the contract's Review Gate text: what the person
	// checks before approving ("" when the contract has none).
	ReviewGate string `json:"review_gate,omitempty"`
	// Evidence says in one line what the outputs rest on ("21 of 24
	// paragraphs supported · 1 URL never read"; "" when not worked out).
	Evidence string `json:"evidence,omitempty"`

	StopReason string `json:"stop_reason,omitempty"`
	Items      int    `json:"items,omitempty"`
	Reused     int    `json:"reused_items,omitempty"`
	Prompt     int    `json:"prompt_tokens"`
	Output     int    `json:"output_tokens"`
	ModelCalls int    `json:"model_calls"`
	ToolCalls  int    `json:"tool_calls"`
	// ToolErrors counts the tool calls that failed; ToolFailures say how.
	ToolErrors   int                 `json:"tool_errors,omitempty"`
	ToolFailures []state.ToolFailure `json:"tool_failures,omitempty"`
	Duration     time.Duration       `json:"duration"`
	// AutoApproved is set when the Gate is auto and every check passed.
	AutoApproved bool `json:"auto_approved,omitempty"`
	// Gate is the summary its review gate shows: outputs missing, files
	// written or proposed beyond the contract's names, headings later
	// stages lack, what icm warned of (nil when there is nothing to say).
	Gate *Gate `json:"gate,omitempty"`
	// Manual is what the person is to do when the stage is a step of
	// theirs, not a model's ("" for any other stage), in the contract's
	// words; ManualWhy says what makes it theirs.
	Manual    string `json:"manual,omitempty"`
	ManualWhy string `json:"manual_why,omitempty"`
}

// Proposed is one change a run proposes to a file outside output/.
type Proposed struct {
	// Target is the file it changes; Kept the proposed content's copy
	// (both workspace-relative).
	Target string `json:"target"`
	Kept   string `json:"kept"`
	// New is set when Target does not exist yet.
	New bool `json:"new,omitempty"`
}

// Summary is what a run did and where it stopped.
type Summary struct {
	RunID string         `json:"run_id"`
	Ran   []*StageResult `json:"ran"`
	// Next is the state after the run: what the person does next.
	Next state.Next `json:"next"`
	// Approved lists stages approved along the way (gate rerun or auto).
	Approved []string `json:"approved,omitempty"`
	// Adopted lists the stages whose outputs, committed with the
	// workspace, the run kept as approved (adopting them now, or, for
	// the stage a run for one was for, leaving them adopted);
	// Regenerating those whose committed outputs runs will write again.
	Adopted      []string `json:"adopted,omitempty"`
	Regenerating []string `json:"regenerating,omitempty"`
}
