package stagetest

import (
	"time"

	"github.com/icm-tool/icm/server/internal/state"
)

// Statuses of a job.
const (
	// StatusPassed: the stage ran and every expectation held.
	StatusPassed = "passed"
	// StatusFailed: the stage ran and an expectation did not hold.
	StatusFailed = "failed"
	// StatusError: the case could not be judged (the case is invalid, the
	// stage did not finish, the model server failed).
	StatusError = "error"
	// StatusCancelled: the run was cancelled before the job finished.
	StatusCancelled = "cancelled"
)

// Sources of a check.
const (
	// SourceCase: an expectation of the case.
	SourceCase = "case"
	// SourceStage: one of the contract's own Verify checks.
	SourceStage = "stage"
)

// Check is the outcome of one expectation.
type Check struct {
	// Expect is the expectation as written (with its output when scoped).
	Expect string `json:"expect"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	OK     bool   `json:"ok"`
	// Message says what did not hold ("" when OK).
	Message string `json:"message,omitempty"`
	// Findings are a Verify check's findings, with file and line.
	Findings []state.VerifyFinding `json:"findings,omitempty"`
	// Line is the expectation's line in the case file (case checks).
	Line int `json:"line,omitempty"`
	// File is the output the check read, workspace-relative.
	File string `json:"file,omitempty"`
	// Info marks a check that is shown but does not decide the job: the
	// stage's own Verify checks when the case states their outcome with a
	// `verify` line.
	Info bool `json:"info,omitempty"`
	// Score, Threshold and Reason are a rubric's judgment.
	Score     *int    `json:"score,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// Result is one job: a case, run once with one model and seed.
type Result struct {
	Case   string `json:"case"`
	Stage  string `json:"stage"`
	Model  string `json:"model"`
	Repeat int    `json:"repeat"`
	Seed   int    `json:"seed"`
	Status string `json:"status"`
	// Error and Hint say why a job is in error.
	Error string `json:"error,omitempty"`
	Hint  string `json:"hint,omitempty"`
	// Checks are the case's expectations in order, then the stage's own
	// Verify checks.
	Checks []Check `json:"checks"`
	// FirstFailure is the first check that did not hold, as "expect: message".
	FirstFailure string `json:"first_failure,omitempty"`
	// Output is the stage's first output, workspace-relative; Outputs holds
	// the text of each output (cut at MaxOutputText bytes).
	Output  string            `json:"output,omitempty"`
	Outputs map[string]string `json:"outputs,omitempty"`
	// Inputs says where each file the stage read came from: FromCase or
	// FromWorkspace.
	Inputs map[string]string `json:"inputs,omitempty"`
	// The stage's model use, as its trace records it (Script stages'
	// subcommands included), and the rubric judge's.
	PromptTokens int `json:"prompt_tokens"`
	OutputTokens int `json:"output_tokens"`
	ModelCalls   int `json:"model_calls"`
	JudgeTokens  int `json:"judge_tokens,omitempty"`
	JudgeCalls   int `json:"judge_calls,omitempty"`
	// Duration is the job's wall time: copy, run and checks.
	Duration time.Duration `json:"duration"`
	// Cache says which requests were replayed (with Options.Cache).
	Cache *CacheStats `json:"cache,omitempty"`
	// RunID is the engine's run in the copy; Copy the copy's folder when kept.
	RunID string `json:"run_id,omitempty"`
	Copy  string `json:"copy,omitempty"`
}

// Tokens is what the stage's calls counted, in and out.
func (r *Result) Tokens() int { return r.PromptTokens + r.OutputTokens }

// Failed reports whether the job counts as a failure (failed or in error).
func (r *Result) Failed() bool { return r.Status != StatusPassed }

// MaxOutputText bounds the text of one output kept in a result.
const MaxOutputText = 64 << 10
