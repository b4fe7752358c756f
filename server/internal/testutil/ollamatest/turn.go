package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// Turn is what the scripted model does for one chat call: answer (text,
// thinking, tool calls, a stop reason) or misbehave (fail with a status,
// break off mid-stream, hang, drop the connection). Build one with the
// constructors below (Text, Calls, Fail ...) and adjust it with the With
// methods; the zero Turn answers with empty content.
type Turn struct {
	// Content is the answer text.
	Content string
	// Thinking is sent in the message's thinking field. When the model lacks
	// the "thinking" capability it is sent inline as <think>...</think> at
	// the start of the content instead, as a model without a thinking parser
	// would; when the request sets think to false it is left out.
	Thinking string
	// ToolCalls are the tool calls of the answer.
	ToolCalls []ToolCall
	// DoneReason is the stop reason; "" means "stop".
	DoneReason string
	// PromptEvalCount, when positive, replaces the computed prompt count
	// (and is not clamped), to imitate a server that counts differently.
	PromptEvalCount int
	// EvalCount, when positive, replaces the computed output count.
	EvalCount int
	// Cached, when set, is the count of reused prompt tokens the answer
	// reports, as newer servers do: prompt_eval_cached_count on Ollama's
	// API, usage.prompt_tokens_details.cached_tokens on the OpenAI one.
	Cached *int
	// Delay is waited, inside a slot, on top of Config.Latency.
	Delay time.Duration
	// Hold, when not nil, makes the answer wait inside its slot until the
	// channel is closed: a test can then see exactly how many calls run at once.
	Hold <-chan struct{}
	// Pause, when not nil, makes a streamed answer (Ollama's API) wait
	// after its first chunk until the channel is closed: the prompt is
	// read and the answer begun, as a real server is while it generates.
	Pause <-chan struct{}

	// Status, when not zero, fails the call with this HTTP status and a
	// JSON {"error": Error} body before anything else is sent.
	Status int
	// Error is the message of a failure (Status or StreamError).
	Error string
	// StreamError, when true, sends Content (streamed in pieces) and then an
	// error object {"error": Error} in the stream, without a final done
	// chunk. A non-streaming call gets HTTP 500 with that error, as Ollama does.
	StreamError bool
	// Hang, when true, answers nothing until the client gives up (its
	// context is cancelled) or the server closes.
	Hang bool
	// Drop, when true, sends part of the answer and then closes the
	// connection without finishing the response.
	Drop bool
	// FloodPiece, when not empty, makes a runaway model: the answer is
	// FloodPiece sent FloodCount times (one chunk each when streaming),
	// whatever num_predict says, then a normal done chunk; a FloodCount
	// below 1 never ends, until the client goes away.
	FloodPiece string
	FloodCount int
}

// ToolCall is one function call in a scripted answer: the canned demo
// model's, so both servers send a call the same way.
type ToolCall = canned.ToolCall

// Text answers with content.
func Text(content string) Turn { return Turn{Content: content} }

// Call makes a tool call for Calls.
func Call(name string, args map[string]any) ToolCall {
	return ToolCall{Name: name, Arguments: args}
}

// Calls answers with tool calls and no content.
func Calls(calls ...ToolCall) Turn { return Turn{ToolCalls: calls} }

// Think answers with a thinking block (the thinking field) and content.
func Think(thinking, content string) Turn {
	return Turn{Thinking: thinking, Content: content}
}

// ThinkTags answers with the thinking written inline in the content as
// <think>...</think>, the way a model served without a thinking parser does.
func ThinkTags(thinking, content string) Turn {
	return Turn{Content: "<think>\n" + thinking + "\n</think>\n\n" + content}
}

// JSON answers with v encoded as JSON, for calls that ask for a format. A
// value that cannot be encoded makes a turn that fails with HTTP 500, so the
// mistake shows in the test that scripted it.
func JSON(v any) Turn {
	b, err := json.Marshal(v)
	if err != nil {
		return Fail(http.StatusInternalServerError, fmt.Sprintf("ollamatest: cannot encode the scripted JSON reply: %v", err))
	}
	return Turn{Content: string(b)}
}

// Length answers with partial content that stopped for length
// (done_reason "length"), as when num_predict or the window ran out.
func Length(partial string) Turn {
	return Turn{Content: partial, DoneReason: "length"}
}

// Fail answers with an HTTP status and {"error": msg}. An empty msg takes
// the text Ollama uses for that status where there is one.
func Fail(status int, msg string) Turn {
	if msg == "" {
		msg = defaultFailure(status)
	}
	return Turn{Status: status, Error: msg}
}

// StreamFailure sends partial content and then an error object mid-stream.
func StreamFailure(partial, msg string) Turn {
	return Turn{Content: partial, StreamError: true, Error: msg}
}

// Hang answers nothing until the client cancels the call.
func Hang() Turn { return Turn{Hang: true} }

// Drop sends part of content and then closes the connection mid-response.
func Drop(content string) Turn { return Turn{Content: content, Drop: true} }

// Flood answers with piece repeated n times, past any num_predict, and
// then stops normally (done_reason "stop"); n < 1 streams it until the
// client hangs up. It is the model server that never stops talking.
func Flood(piece string, n int) Turn { return Turn{FloodPiece: piece, FloodCount: n} }

// flooding reports whether the turn is a runaway answer.
func (t Turn) flooding() bool { return t.FloodPiece != "" }

// WithDelay returns the turn answering d later than the configured latency.
func (t Turn) WithDelay(d time.Duration) Turn { t.Delay = d; return t }

// WithHold returns the turn waiting inside its slot until ch is closed.
func (t Turn) WithHold(ch <-chan struct{}) Turn { t.Hold = ch; return t }

// WithPause returns the turn waiting after its first streamed chunk until ch is closed.
func (t Turn) WithPause(ch <-chan struct{}) Turn { t.Pause = ch; return t }

// WithCounts returns the turn reporting these token counts (zero keeps the computed one).
func (t Turn) WithCounts(promptEval, eval int) Turn {
	t.PromptEvalCount, t.EvalCount = promptEval, eval
	return t
}

// WithCached returns the turn reporting n reused prompt tokens.
func (t Turn) WithCached(n int) Turn { t.Cached = &n; return t }

// WithThinking returns the turn with a thinking block added.
func (t Turn) WithThinking(thinking string) Turn { t.Thinking = thinking; return t }

// failed reports whether the turn fails before any answer is sent.
func (t Turn) failed() bool { return t.Status != 0 }

// defaultFailure is the message Ollama sends with a status, where it has a fixed one.
func defaultFailure(status int) string {
	switch status {
	case http.StatusServiceUnavailable:
		return errMaxQueue
	case http.StatusNotFound:
		return "model not found"
	case http.StatusBadRequest:
		return "invalid request"
	}
	return fmt.Sprintf("ollamatest: scripted failure (%d %s)", status, http.StatusText(status))
}
