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
	// Warnings are what icm warned of in the contract when it ran.
	Warnings []state.Warning `json:"warnings,omitempty"`
	// Lacked are the headings later stages read of its outputs that the
	// outputs, as the run left them, lack (check.Report.HeadingsLacked).
	Lacked []state.LackedHeading `json:"lacked_headings,omitempty"`

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
}

// Summary is what a run did and where it stopped.
type Summary struct {
	RunID string         `json:"run_id"`
	Ran   []*StageResult `json:"ran"`
	// Next is the state after the run: what the person does next.
	Next state.Next `json:"next"`
	// Approved lists stages approved along the way (gate rerun or auto).
	Approved []string `json:"approved,omitempty"`
}
