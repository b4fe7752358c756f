package report

import (
	"time"

	"github.com/icm-tool/icm/server/internal/state"
)

// Event kinds, in the order a run produces them.
const (
	EventRunStart   = "run-start"
	EventStageStart = "stage-start"
	EventItemStart  = "item-start"
	EventModel      = "model"
	EventTool       = "tool"
	EventDelta      = "delta"
	EventItemEnd    = "item-end"
	EventScript     = "script"
	EventVerify     = "verify"
	EventStageEnd   = "stage-end"
	EventGate       = "gate"
	EventRunEnd     = "run-end"
)

// EventSchema is the version of the events' JSON keys: 2 since every
// key is snake_case (docs/json.md).
const EventSchema = 2

// Event is one step of a run. The CLI prints events as progress, the
// language server turns them into $/progress, and every event but deltas is
// appended to the run's trace in history/<run-id>.jsonl.
type Event struct {
	// Schema is the version of the keys (EventSchema); traces written
	// before it was set have none and key model and tool events by Go
	// names.
	Schema int       `json:"schema,omitempty"`
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	RunID  string    `json:"run_id"`
	Stage  string    `json:"stage,omitempty"`
	// Item is the For each item's title; Index (1-based) and Count place it.
	Item  string `json:"item,omitempty"`
	Index int    `json:"index,omitempty"`
	Count int    `json:"count,omitempty"`
	// Done is how many of the Count items have finished (item-start,
	// item-end): progress counts these, since items run in parallel and
	// out of order.
	Done  int         `json:"done,omitempty"`
	Model *ModelEvent `json:"model,omitempty"`
	Tool  *ToolEvent  `json:"tool,omitempty"`
	// Delta is streamed answer text (never written to the trace).
	Delta string `json:"-"`
	// Message is a one-line human summary.
	Message string `json:"message,omitempty"`
	// Note is a person's note for the model on a run of one For each
	// item again (run-start, with Stage and Index naming the item).
	Note string `json:"note,omitempty"`
	Err  string `json:"error,omitempty"`
	// Outputs are workspace-relative output paths (stage-end).
	Outputs []string `json:"outputs,omitempty"`
	// Status is the stage's run status (stage-end) or state after the gate.
	Status string               `json:"status,omitempty"`
	Verify []state.VerifyResult `json:"verify,omitempty"`
	// Rubric are the review rubrics' checks (verify, stage-end).
	Rubric []state.RubricCheck `json:"rubric,omitempty"`
	// ReviewGate is the contract's Review Gate text (stage-end).
	ReviewGate string `json:"review_gate,omitempty"`
	// SameOutput is set on a good stage-end whose outputs are byte for
	// byte what the stage's last good run wrote, so an approval of them
	// stands and nothing after the stage goes stale.
	SameOutput bool `json:"same_output,omitempty"`
	// Duration is the stage's or run's wall time (stage-end, run-end).
	Duration time.Duration `json:"duration,omitempty"`
	// Tokens are totals for the stage or run (stage-end, run-end).
	PromptTokens int `json:"prompt_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
	// Gate is the summary the stage's review gate shows (stage-end; nil
	// when there is nothing to say).
	Gate *Gate `json:"gate,omitempty"`
	// Manual is what the person is to do when the stage is a step of
	// theirs, in its contract's words (stage-end).
	Manual string `json:"manual,omitempty"`
}

// ModelEvent describes one model call. Its JSON keys are snake_case like
// every other key icm writes (schema 2); traces written before that key
// them by the Go names, which UnmarshalJSON still reads (legacy.go).
type ModelEvent struct {
	// Call numbers the model calls of the agent loop from 1.
	Call int `json:"call"`
	// Purpose says why the call was made: the tool loop, the synthesis
	// after an early stop, the formatted answer, or a coding agent's hand
	// in (the agent package's Purpose constants, workflow's PurposeAgent).
	Purpose    string `json:"purpose"`
	Model      string `json:"model"`
	Server     string `json:"server"`
	DoneReason string `json:"done_reason"`
	// PromptTokens and OutputTokens are the server's counts; PromptEstimate
	// is icm's own, made before the call; NumCtx is the window asked for.
	PromptTokens   int `json:"prompt_tokens"`
	OutputTokens   int `json:"output_tokens"`
	PromptEstimate int `json:"prompt_estimate"`
	NumCtx         int `json:"num_ctx"`
	// PromptMethod says how PromptEstimate was made (tokens.Method:
	// exact, server, estimated). PromptGuess is icm's heuristic estimate
	// of the same prompt, kept even when PromptEstimate is exact: past
	// runs' ratio of PromptTokens to PromptGuess calibrates the counts
	// made where nothing better is known.
	PromptMethod string `json:"prompt_method,omitempty"`
	PromptGuess  int    `json:"prompt_guess,omitempty"`
	// Reused is how many of the PromptTokens the server took from a
	// slot's cache instead of computing them (prefill); ReuseMeasured
	// says the server reported it, else icm predicted it from the
	// prompts the run sent before, on ReuseBasis (the server's setup it
	// assumed, or that the server reported it; "" when nothing is known).
	// Own is how many of the prompt's tokens no earlier prompt of the run
	// to the same server and model began with: the least the call could
	// compute (0 when unknown).
	Reused        int    `json:"reused,omitempty"`
	ReuseMeasured bool   `json:"reuse_measured,omitempty"`
	ReuseBasis    string `json:"reuse_basis,omitempty"`
	Own           int    `json:"own,omitempty"`
	// Duration is the wall-clock time of the call, retries included; the
	// others are the server's figures.
	Duration     time.Duration `json:"duration"`
	LoadDuration time.Duration `json:"load_duration"`
	PromptEval   time.Duration `json:"prompt_eval"`
	Eval         time.Duration `json:"eval"`
	// Attempts counts tries, retries of transient failures included.
	Attempts   int  `json:"attempts"`
	Incomplete bool `json:"incomplete"`
	// ToolCalls is how many tool calls the answer asked for.
	ToolCalls int `json:"tool_calls"`
	// Err is the call's error, when it failed.
	Err string `json:"error,omitempty"`
	// SentFrom and Sent are the request's messages: the ones before
	// SentFrom were in the loop's previous request (the conversation only
	// grows), Sent are the ones added since. A trace so holds each call's
	// whole request without repeating the conversation at every call.
	SentFrom int       `json:"sent_from,omitempty"`
	Sent     []Message `json:"sent,omitempty"`
	// Tools names the tools the call offered.
	Tools []string `json:"tools,omitempty"`
	// Reply is the answer (nil when the call failed).
	Reply *Message `json:"reply,omitempty"`
}

// ToolEvent describes one tool call; its keys are snake_case as
// ModelEvent's are, and old traces' Go names still read.
type ToolEvent struct {
	// Call numbers the tool calls of the agent loop from 1.
	Call int `json:"call"`
	// Name is the name the model called; Server and Tool what it maps to.
	Name   string         `json:"name"`
	Server string         `json:"server"`
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args"`
	// ResultSize is the size of the full result, before any cut.
	ResultSize int `json:"result_size"`
	// Truncated says the result fed back was cut (by the session or the loop).
	Truncated bool          `json:"truncated"`
	IsError   bool          `json:"is_error"`
	Duration  time.Duration `json:"duration"`
	// Err says why the call failed: the server failure when the call
	// returned an error, else the error text the tool returned. Never
	// empty when IsError is set.
	Err string `json:"error,omitempty"`
	// Result is the text fed back to the model (after any cut). It is kept
	// out of the trace, where the next model call's request holds it.
	Result string `json:"-"`
}

// Message is one message of a model call's request or its reply, as the
// trace keeps it: a record of the chat message package llm sends, filled
// once where the call is made (package agent), with the same JSON keys.
type Message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolName names the tool whose result a RoleTool message carries.
	ToolName string `json:"tool_name,omitempty"`
	// ToolCallID links a RoleTool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's request, in a Message, to run one tool.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}
