package report

import (
	"strings"
	"time"
)

// RunSummary is one run as its trace tells it.
type RunSummary struct {
	ID       string        `json:"id"`
	Start    time.Time     `json:"start"`
	End      time.Time     `json:"end"`
	Duration time.Duration `json:"duration"`
	Stages   []*StageTrace `json:"stages"`
	Prompt   int           `json:"prompt_tokens"`
	Output   int           `json:"output_tokens"`
	// Finished is false when the trace has no run-end (the run is still
	// going, or was killed).
	Finished bool `json:"finished"`
	// Status is how the run ended: RunDone, RunFailed, RunCancelled,
	// RunRefused (it failed before any stage did work: not a run so much
	// as an attempt) or, without a run-end, RunUnfinished as the trace
	// tells it, which the session makes RunRunning or RunStopped.
	Status string `json:"status"`
	// Item and Note say the run was one For each item of ItemStage run
	// again, with the person's note for the model ("" when none).
	ItemStage string `json:"item_stage,omitempty"`
	Item      int    `json:"item,omitempty"`
	Note      string `json:"note,omitempty"`
	// Events are the trace's events in order, when one run is read by
	// its id (within a bound, see Notes); a listing of every run keeps
	// none.
	Events []Event `json:"-"`
	// Tree is the run as a tree: one node per stage, with its model
	// calls, tool calls and Verify results under it (a For each item's
	// under the item), within a bound on its nodes. `icm history --run`
	// and the editor's run view show the same words.
	Tree []*RunNode `json:"-"`
	// Notes say what of the trace was not read or not kept: a line over
	// the line cap, events past what one run keeps, a trace that could
	// not be read.
	Notes []string `json:"notes,omitempty"`
}

// How a run ended (RunSummary.Status).
const (
	RunDone      = "done"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
	RunRefused   = "refused"
	// RunUnfinished is a trace without its run-end; the session tells
	// RunRunning (a run holds the workspace now) from RunStopped (its
	// process was killed).
	RunUnfinished = "unfinished"
	RunRunning    = "running"
	RunStopped    = "stopped"
)

// LatestRun names the newest run wherever a run id is asked for.
const LatestRun = "latest"

// StageTrace is one stage of a run.
type StageTrace struct {
	Stage      string        `json:"stage"`
	Status     string        `json:"status"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration"`
	Prompt     int           `json:"prompt_tokens"`
	Output     int           `json:"output_tokens"`
	ModelCalls int           `json:"model_calls"`
	ToolCalls  int           `json:"tool_calls"`
	ToolErrors int           `json:"tool_errors,omitempty"`
	Items      int           `json:"items,omitempty"`
	// Done counts the For each items that finished.
	Done int `json:"done,omitempty"`
	// Prefill sums what the stage's model calls cost before their
	// answers, over the calls whose reused tokens are known (nil: none).
	Prefill *PrefillSum `json:"prefill,omitempty"`
	// Approval is the stage's approval of what this run wrote, when the
	// stage's outputs from this run are the ones approved (nil: none).
	Approval *Approval `json:"approval,omitempty"`
}

// Approval is an acceptance of a stage's outputs, as history shows it.
type Approval struct {
	// By is "user", "auto", "rerun" or an agent ("agent:NAME").
	By string `json:"by"`
	// Reviewer names the person, Note is what they said of it.
	Reviewer string    `json:"reviewer,omitempty"`
	Note     string    `json:"note,omitempty"`
	Forced   bool      `json:"forced,omitempty"`
	At       time.Time `json:"at"`
}

// Words says who approved and why in one line: "approved by Ann, past
// failing checks: the figures are from the notes".
func (a *Approval) Words() string {
	who := a.Reviewer
	switch {
	case who == "" && a.By == "auto":
		who = "the gate (auto)"
	case who == "" && a.By == "rerun":
		who = "running again (gate rerun)"
	case who == "":
		who = a.By
	}
	text := "approved by " + who
	if a.Forced {
		text += ", past failing checks"
	}
	if note := strings.Join(strings.Fields(a.Note), " "); note != "" {
		text += ": " + note
	}
	return text
}

// PrefillSum is what some model calls' prompts cost before their answers.
type PrefillSum struct {
	// Calls counts the calls summed: those with a reuse figure.
	Calls int `json:"calls"`
	// Prompt is their prompt tokens and Reused what the server reused of
	// them from its cache: Prompt less Reused were computed.
	Prompt int `json:"prompt_tokens"`
	Reused int `json:"reused"`
	// Least is the fewest they could have computed: the sum of each
	// call's own tokens (0 when a call's are not known).
	Least int `json:"least,omitempty"`
	// Measured counts the calls whose figure the server reported; the
	// others' are icm's predictions.
	Measured int `json:"measured,omitempty"`
	// PromptEval is the time the server spent on those prompts.
	PromptEval time.Duration `json:"prompt_eval,omitempty"`
}

// Kinds of run tree nodes.
const (
	NodeStage  = "stage"
	NodeItem   = "item"
	NodeModel  = "model"
	NodeTool   = "tool"
	NodeVerify = "verify"
)

// RunNode is one line of a run as a tree: a stage, a For each item, a
// model call, a tool call or a Verify result. `icm history --run` prints
// the tree and the editor's run view shows it, with the same words.
type RunNode struct {
	Kind string `json:"kind"`
	// Text is the line: "model qwen3.5:9b  2,479 tokens in / 312 out  4.1 s".
	Text string `json:"text"`
	// Stage, Index (the For each item, 0 for none) and Call (the model or
	// tool call's number within its stage or item) say which call a node
	// is, so its request and reply can be opened (Exchange, ToolExchange).
	Stage string `json:"stage"`
	Index int    `json:"index,omitempty"`
	Call  int    `json:"call,omitempty"`
	// Error says what failed, when something did.
	Error        string        `json:"error,omitempty"`
	PromptTokens int           `json:"prompt_tokens,omitempty"`
	OutputTokens int           `json:"output_tokens,omitempty"`
	Duration     time.Duration `json:"duration,omitempty"`
	// Agent is, on a stage's node, the agent:NAME that handed its
	// outputs in over MCP; "" for a model's run.
	Agent string `json:"agent,omitempty"`
	// Args are a tool call's arguments; Size its result's size in bytes.
	Args map[string]any `json:"args,omitempty"`
	Size int            `json:"size,omitempty"`
	// Rerun, on a stage, is the For each item the run did again (0 for
	// the whole stage), and Note the person's note for it.
	Rerun    int        `json:"rerun,omitempty"`
	Note     string     `json:"note,omitempty"`
	Children []*RunNode `json:"children,omitempty"`
}

// Exchange is one model call of a run as the model saw it: the whole
// request and the reply, rebuilt from the trace.
type Exchange struct {
	Stage string `json:"stage"`
	// Item and Index name the For each item ("" and 0 for a stage without one).
	Item  string      `json:"item,omitempty"`
	Index int         `json:"index,omitempty"`
	Call  *ModelEvent `json:"call"`
	// Request is every message the call sent, in order.
	Request []Message `json:"request"`
}

// ToolExchange is one tool call of a run: what the model asked for, what
// the tool gave back (as the model was given it) and how it failed.
type ToolExchange struct {
	Stage string `json:"stage"`
	// Item and Index name the For each item ("" and 0 for a stage without one).
	Item  string     `json:"item,omitempty"`
	Index int        `json:"index,omitempty"`
	Call  *ToolEvent `json:"call"`
	// Result is the text fed back to the model; HasResult is false when
	// no later model call of the loop carried it (the run stopped first).
	Result    string `json:"result"`
	HasResult bool   `json:"has_result"`
}

// ItemSpan is where one For each item's section is in a stage's output as
// it is now, which may hold a person's edits.
type ItemSpan struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	// Start and End are byte offsets of the section in the output.
	Start int `json:"start"`
	End   int `json:"end"`
	// Found is false when the section cannot be told apart (it and the
	// items around it were all edited).
	Found bool `json:"found"`
	// Edited is set when the section differs from what the model wrote.
	Edited bool `json:"edited"`
}
