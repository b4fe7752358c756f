package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// Defaults of Config fields left at zero.
const (
	DefaultMaxToolCalls       = 24
	DefaultMaxToolResultChars = 12000
	DefaultStuckRepeats       = 3
)

// Stop reasons of a Run.
const (
	// StopDone: the model gave a final answer.
	StopDone = "done"
	// StopToolLimit: the model asked for more than MaxToolCalls tool calls.
	StopToolLimit = "tool-limit"
	// StopStuck: the model repeated the same call StuckRepeats times in a row.
	StopStuck = "stuck"
	// StopEmpty: the model answered nothing twice (once more after the nudge).
	StopEmpty = "empty"
	// StopIncomplete: the final answer stopped for length; it is not finished.
	StopIncomplete = "incomplete"
)

// Event kinds.
const (
	// EventModel follows every model call (Event.Model is set).
	EventModel = "model"
	// EventTool follows every tool call (Event.Tool is set).
	EventTool = "tool"
	// EventDelta carries a streamed piece of an answer (Delta, Thinking, Restart).
	EventDelta = "delta"
	// EventNudge says the model answered empty and was asked again.
	EventNudge = "nudge"
	// EventSynthesize precedes the no-tools call after an early stop;
	// StopReason says why the loop stopped.
	EventSynthesize = "synthesize"
	// EventFormat precedes the no-tools call that writes the final answer in
	// Config.Format after a tool loop (format and tools cannot share a call).
	EventFormat = "format"
	// EventStop is the last event of a Run that returns no error.
	EventStop = "stop"
)

// Purposes of a model call, in report.ModelEvent's Purpose.
const (
	PurposeLoop       = "loop"
	PurposeSynthesize = "synthesize"
	PurposeFormat     = "format"
)

// Tools is what the loop needs of a tool session. The workflow adapts
// tools.Toolset to it, which keeps this package free of MCP.
type Tools interface {
	// Tools returns the tools to offer the model.
	Tools() []llm.Tool
	// Call runs one tool. Unknown names and bad arguments come back as a
	// ToolResult with IsError (the model reads the text); a non-nil error
	// means the server broke (died, hung past its deadline): the loop shows
	// it to the model as an error result, records it and goes on. An error
	// while ctx is done ends the Run with ctx's error.
	Call(ctx context.Context, name string, args map[string]any) (ToolResult, error)
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	Text    string
	IsError bool
	// Server and Tool identify the tool behind the exposed name ("" when unknown).
	Server, Tool string
	// Size is the size of the full result before any cut (0: len(Text)).
	Size int
	// Truncated says the session already cut Text.
	Truncated bool
	// Duration is how long the call took (0: the loop measures it).
	Duration time.Duration
}

// Config is one Run's model settings and bounds.
type Config struct {
	// Stage names the stage (and item), e.g. "02-research" or "04-draft [2/5]",
	// for errors and events.
	Stage       string
	Model       string
	Temperature *float64
	// Seed, when set, fixes the sampler's seed, so a call repeats its
	// answer on servers that honour it (stage tests give each repeat one).
	Seed      *int
	Think     *bool
	NumCtx    int
	MaxOutput int
	// Format asks for structured output of the final answer (nil = text).
	// With tools offered, the loop runs without it and one last call without
	// tools writes the answer in the format (EventFormat).
	Format json.RawMessage
	// MaxToolCalls bounds the tool calls of one Run (0 = DefaultMaxToolCalls).
	MaxToolCalls int
	// MaxToolResultChars bounds the characters of one tool result fed back;
	// longer results keep their head and tail around a marker
	// (0 = DefaultMaxToolResultChars).
	MaxToolResultChars int
	// StuckRepeats: the same tool with the same (canonical JSON) arguments
	// this many times in a row ends the loop (0 = DefaultStuckRepeats).
	StuckRepeats int
	// Synthesize makes one final call without tools when the loop ends
	// early, asking for the output from what was gathered.
	Synthesize bool
	// Prefill, when set, is the run's account of the prompts it sent, so
	// each call's event says what the server reused of its prompt.
	Prefill *llm.Prefill
}

// Event is one step of a Run, for the trace and the progress display.
type Event struct {
	Kind  string
	Stage string
	Model *report.ModelEvent
	Tool  *report.ToolEvent
	// Delta is a streamed piece of the answer text (Kind "delta").
	Delta string
	// Thinking is a streamed piece of the model's reasoning (Kind "delta").
	Thinking string
	// Restart says the streamed pieces of the current call so far are void:
	// the client is making the call again (Kind "delta").
	Restart bool
	// StopReason is why the Run ended (Kind "stop") or why the loop stopped
	// early (Kind "synthesize").
	StopReason string
}

// Result is the outcome of a Run.
type Result struct {
	// Output is the cleaned final answer (see Clean); empty when the loop
	// stopped early without synthesizing.
	Output string
	// Raw is the final answer as the model wrote it.
	Raw string
	// StopReason is one of the Stop constants. After an early stop it stays
	// the early reason even when synthesizing produced Output.
	StopReason string
	// Incomplete: the final answer stopped for length (done_reason
	// "length"); the caller must not accept it as finished.
	Incomplete bool
	// Messages is the whole conversation, the final answer included.
	Messages []llm.Message
	// ModelCalls and ToolCalls count the calls made; the token figures sum
	// the server's counts over every model call.
	ModelCalls, ToolCalls, PromptTokens, OutputTokens int
	// ToolErrors counts the tool calls that failed.
	ToolErrors int
}
