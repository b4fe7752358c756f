// Package llm talks to model servers. The rest of icm sees one interface,
// Client, with three implementations: Ollama (the native API, the
// default), OpenAI (any OpenAI-compatible chat completions server: vLLM,
// llama-server, LM Studio, a gateway) and Pool (several servers of one
// model, calls spread by free slots, a failing server left out for a
// cooldown). FromConfig builds the one a workspace's [model] section asks
// for, and Fallback lays a contract's fallback models over any of them.
// Every backend sizes or checks the context window against the counted
// prompt before the call, sorts errors into kinds, retries what is
// transient and refuses what would be silently truncated. Those kinds are
// llm's own (they decide retries and fallbacks); the rest of icm sees its
// errors only as faults, through Error.Fault.
package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// DoneAnswerCap is the DoneReason of an answer icm cut off because the
// server sent more than max_output allows: it is incomplete.
const DoneAnswerCap = "answer-cap"

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat turn.
type Message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolName names the tool whose result a RoleTool message carries.
	ToolName string `json:"tool_name,omitempty"`
	// ToolCallID links a RoleTool message to the call it answers (OpenAI-style servers need it).
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Tool is a function offered to the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
}

// Options are the sampling and context settings of one call. Zero values
// mean "server default", except NumCtx (see ChatRequest).
type Options struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopK        int      `json:"top_k,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// NumCtx, when set, is the context window to ask for; the prompt must fit
	// in it with MaxOutput to spare. When zero the client sizes the window
	// from the counted prompt plus MaxOutput, capped by the model's length.
	NumCtx int `json:"num_ctx,omitempty"`
	// MaxOutput is the room kept for the answer (num_predict). Zero means
	// the client's default.
	MaxOutput int `json:"max_output,omitempty"`
}

// ChatRequest is one model call.
type ChatRequest struct {
	// Stage names the stage (and item) the call is for; it appears in errors.
	Stage    string
	Model    string
	Messages []Message
	Tools    []Tool
	// Format is "json" or a JSON Schema for structured output; nil for text.
	Format  json.RawMessage
	Think   *bool
	Options Options
	// OnDelta, when set, makes the call stream and receives each piece of
	// the answer as it arrives.
	OnDelta func(Delta)
	// Prefill, when set, is the run's account of the prompts it sent:
	// the answer's Reuse predicts what the server reused of this one.
	Prefill *Prefill
}

// Delta is a piece of a streamed answer.
type Delta struct {
	Content  string
	Thinking string
	// Restart says the deltas received so far are void: the call is being
	// made again (a larger window after the server cut the prompt) and the
	// answer starts over. Content and Thinking are empty when it is set.
	Restart bool
}

// ChatResponse is the finished answer of one call.
type ChatResponse struct {
	Model   string
	Message Message
	// DoneReason is the server's stop reason ("stop", "length", ...), or
	// DoneAnswerCap when icm cut the answer off.
	DoneReason string
	// Incomplete is true when the answer stopped for length: it must not be
	// accepted as a finished output.
	Incomplete bool
	// PromptTokens and OutputTokens are the server's counts.
	PromptTokens int
	OutputTokens int
	// PromptEstimate is icm's own count of the prompt, made before the call
	// (exact when PromptCount says so); PromptCount is that count with its
	// method; PromptGuess is the heuristic's count, kept for calibration
	// even when the count was exact.
	PromptEstimate int
	PromptCount    tokens.Count
	PromptGuess    int
	// NumCtx is the context window the call asked for.
	NumCtx int
	// Server is the base URL that answered.
	Server        string
	TotalDuration time.Duration
	LoadDuration  time.Duration
	PromptEval    time.Duration
	Eval          time.Duration
	// Attempts counts tries, including retries of transient failures.
	Attempts int
	// Reuse is how many prompt tokens the server reused from its cache,
	// measured or predicted; nil when icm cannot say.
	Reuse *Reuse
}

// ModelInfo is what the server says about a model.
type ModelInfo struct {
	Name          string
	Family        string
	ContextLength int
	// ByteLevel is true when the tokenizer has one token per byte, which
	// makes the byte count an exact estimate.
	ByteLevel    bool
	Capabilities []string
}

// PullProgress reports a model download.
type PullProgress struct {
	Status    string
	Digest    string
	Total     int64
	Completed int64
}

// Client is a model server connection.
type Client interface {
	// Chat runs one call to completion (streaming when req.OnDelta is set).
	Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error)
	// Show returns the model's details, cached per model.
	Show(ctx context.Context, model string) (*ModelInfo, error)
	// Pull downloads a model, reporting progress.
	Pull(ctx context.Context, model string, progress func(PullProgress)) error
}
