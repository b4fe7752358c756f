package report

import (
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestCase is a stage test case chosen to run, with its stage and
// contract.
type TestCase struct {
	Case     *testcase.Case
	Stage    *workspace.Stage
	Contract *contract.Contract
	// Errors are the error findings of the case (its own and the
	// workspace's checks): a case with any is reported, never run.
	Errors []string
}

// Statuses of a test job.
const (
	// TestPassed: the stage ran and every expectation held.
	TestPassed = "passed"
	// TestFailed: the stage ran and an expectation did not hold.
	TestFailed = "failed"
	// TestError: the case could not be judged (the case is invalid, the
	// stage did not finish, the model server failed).
	TestError = "error"
	// TestCancelled: the run was cancelled before the job finished.
	TestCancelled = "cancelled"
)

// Sources of a check.
const (
	// SourceCase: an expectation of the case.
	SourceCase = "case"
	// SourceStage: one of the contract's own Verify checks.
	SourceStage = "stage"
)

// TestCheck is the outcome of one expectation.
type TestCheck struct {
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

// TestResult is one job: a case, run once with one model and seed.
type TestResult struct {
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
	Checks []TestCheck `json:"checks"`
	// FirstFailure is the first check that did not hold, as "expect: message".
	FirstFailure string `json:"first_failure,omitempty"`
	// Output is the stage's first output, workspace-relative; Outputs holds
	// the text of each output (cut at a bound).
	Output  string            `json:"output,omitempty"`
	Outputs map[string]string `json:"outputs,omitempty"`
	// Inputs says where each file the stage read came from: the case or
	// the workspace.
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
	// Cache says which requests were replayed (when the run replays).
	Cache *CacheStats `json:"cache,omitempty"`
	// RunID is the engine's run in the copy; Copy the copy's folder when kept.
	RunID string `json:"run_id,omitempty"`
	Copy  string `json:"copy,omitempty"`
}

// Tokens is what the stage's calls counted, in and out.
func (r *TestResult) Tokens() int { return r.PromptTokens + r.OutputTokens }

// Failed reports whether the job counts as a failure (failed or in error).
func (r *TestResult) Failed() bool { return r.Status != TestPassed }

// CacheStats says which of a job's requests the cache answered.
type CacheStats struct {
	Hits   int        `json:"hits"`
	Misses int        `json:"misses"`
	Keys   []CacheKey `json:"keys"`
}

// CacheKey is one request's key and whether it was a hit.
type CacheKey struct {
	Key string `json:"key"`
	Hit bool   `json:"hit"`
}

// TestCaseInfo names a case as it was when it ran.
type TestCaseInfo struct {
	ID    string `json:"id"`
	Stage string `json:"stage"`
	Name  string `json:"name"`
	Title string `json:"title"`
	// File is the case file, workspace-relative; Line is its title's line.
	File string `json:"file"`
	Hash string `json:"hash"`
}

// TestRow is one cell of the matrix: a case with one model, over its
// repeats.
type TestRow struct {
	Case  string `json:"case"`
	Model string `json:"model"`
	// Runs is N, Passed is k: "k of N".
	Runs   int `json:"runs"`
	Passed int `json:"passed"`
	Errors int `json:"errors"`
	// MedianTokens and MedianDuration are over the repeats.
	MedianTokens   int           `json:"median_tokens"`
	MedianDuration time.Duration `json:"median_duration"`
	// FirstFailure is the first failing expectation of the first repeat
	// that failed ("" when all passed).
	FirstFailure string `json:"first_failure,omitempty"`
	CacheHits    int    `json:"cache_hits,omitempty"`
}

// Rate is k of N as text.
func (r TestRow) Rate() string { return fmt.Sprintf("%d/%d", r.Passed, r.Runs) }

// TestReport is one `icm test` run, as saved in history/tests/<run>.json.
type TestReport struct {
	Version   int           `json:"version"`
	RunID     string        `json:"run_id"`
	Workspace string        `json:"workspace"`
	Started   time.Time     `json:"started"`
	Finished  time.Time     `json:"finished"`
	Duration  time.Duration `json:"duration"`
	// Complete is false when the run was cancelled part way.
	Complete bool `json:"complete"`
	// Models are the matrix's models in order.
	Models   []string       `json:"models"`
	Repeat   int            `json:"repeat"`
	Seed     int            `json:"seed"`
	Parallel int            `json:"parallel"`
	Judge    string         `json:"judge,omitempty"`
	Cache    bool           `json:"cache,omitempty"`
	Cases    []TestCaseInfo `json:"cases"`
	Results  []*TestResult  `json:"results"`
	Matrix   []TestRow      `json:"matrix"`
	// Passed is true when every job passed.
	Passed bool `json:"passed"`
	// Counts of jobs by status.
	Counts map[string]int `json:"counts"`
	// SequentialSum is the jobs' durations added up: the wall time the run
	// would take one job at a time.
	SequentialSum time.Duration `json:"sequential_sum"`
}

// Test event kinds.
const (
	TestJobStart = "job-start"
	TestJobEnd   = "job-end"
)

// TestEvent is a test job starting or ending.
type TestEvent struct {
	Kind string `json:"kind"`
	// Index (1-based) and Total place the job in the run.
	Index int    `json:"index"`
	Total int    `json:"total"`
	Case  string `json:"case"`
	Model string `json:"model"`
	// Repeat is 1-based.
	Repeat int `json:"repeat"`
	// Result is set at the end.
	Result *TestResult `json:"result,omitempty"`
}

// Kinds of change against a baseline.
const (
	ChangeBetter = "better"
	ChangeWorse  = "worse"
	ChangeSame   = "same"
	ChangeNew    = "new"
	ChangeGone   = "gone"
)

// TestChange is one matrix cell compared with the same cell of a
// baseline run.
type TestChange struct {
	Case  string `json:"case"`
	Model string `json:"model"`
	Kind  string `json:"kind"`
	// Before and After are "k/N" ("" when the cell is not in that run).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// FirstFailure is the current run's first failure (worse cells).
	FirstFailure string `json:"first_failure,omitempty"`
	// CaseChanged says the case file differs from the baseline's.
	CaseChanged bool `json:"case_changed,omitempty"`
}

// TestComparison is a test run against its baseline.
type TestComparison struct {
	Baseline string       `json:"baseline"`
	Changes  []TestChange `json:"changes"`
	Better   int          `json:"better"`
	Worse    int          `json:"worse"`
}

// String is the change as a report line.
func (c TestChange) String() string {
	s := fmt.Sprintf("%s %s × %s", c.Kind, c.Case, c.Model)
	switch c.Kind {
	case ChangeNew:
		s += ": " + c.After + " (not in the baseline)"
	case ChangeGone:
		s += ": was " + c.Before + ", not run now"
	default:
		s += ": " + c.Before + " → " + c.After
	}
	if c.CaseChanged {
		s += " (the case changed)"
	}
	if c.FirstFailure != "" {
		s += "; first failure: " + c.FirstFailure
	}
	return s
}

// Row returns the matrix cell of a case and model.
func (rep *TestReport) Row(caseID, model string) (TestRow, bool) {
	for _, r := range rep.Matrix {
		if r.Case == caseID && r.Model == model {
			return r, true
		}
	}
	return TestRow{}, false
}
