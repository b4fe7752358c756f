package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// Run runs the tool loop of one model call on messages (which it does not
// change) and returns the final answer. tools may be nil for a call without
// tools. observe, when not nil, receives every event in order on the
// goroutine that called Run (so it must not block for long), and its
// presence makes the model calls stream (for "delta" events). Runs share
// nothing: For each items may run concurrently with one Tools.
//
// Model failures (model missing, prompt too long or cut, server
// unavailable ...) and a cancelled ctx end the Run with an error naming the
// stage; what the model does wrong (unknown tools, bad arguments, loops,
// empty answers) and tool servers that break never do: the model sees
// them, the events record them and the loop goes on or stops with a reason.
func Run(ctx context.Context, client llm.Client, tools Tools, messages []llm.Message, cfg Config, observe func(Event)) (*Result, error) {
	if client == nil {
		return nil, fmt.Errorf("stage %s: no model client to run the agent loop with", cfg.Stage)
	}
	if len(messages) == 0 {
		return nil, fmt.Errorf("stage %s: no messages to send to the model", cfg.Stage)
	}
	r := &run{
		client:  client,
		tools:   tools,
		cfg:     cfg.withDefaults(),
		observe: observe,
		msgs:    slices.Clip(slices.Clone(messages)),
	}
	if tools != nil {
		r.offered = tools.Tools()
	}
	return r.loop(ctx)
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.MaxToolCalls <= 0 {
		c.MaxToolCalls = DefaultMaxToolCalls
	}
	if c.MaxToolResultChars <= 0 {
		c.MaxToolResultChars = DefaultMaxToolResultChars
	}
	if c.StuckRepeats <= 1 {
		// One "repeat" would stop at the first call: not a guard, a ban.
		c.StuckRepeats = DefaultStuckRepeats
	}
	return c
}

// run is the state of one Run.
type run struct {
	client  llm.Client
	tools   Tools
	cfg     Config
	observe func(Event)
	offered []llm.Tool
	msgs    []llm.Message
	res     Result
	guard   repeatGuard
	nudged  bool
	// sent is how many messages the previous model call sent.
	sent int
}

func (r *run) loop(ctx context.Context) (*Result, error) {
	// Ollama constrains the whole answer to the format's grammar, which
	// leaves no room for a tool call: with tools the format waits for a
	// last call without them.
	loopFormat := r.cfg.Format
	if len(r.offered) > 0 {
		loopFormat = nil
	}
	for {
		resp, err := r.chat(ctx, PurposeLoop, r.offered, loopFormat)
		if err != nil {
			return nil, err
		}
		msg := resp.Message
		switch {
		case resp.Incomplete:
			return r.finish(msg, StopIncomplete), nil
		case len(msg.ToolCalls) > 0:
			r.msgs = append(r.msgs, msg)
			reason, err := r.runCalls(ctx, msg.ToolCalls)
			if err != nil {
				return nil, err
			}
			if reason != "" {
				return r.stopEarly(ctx, reason)
			}
		case isBlank(stripThinking(msg.Content)):
			if r.nudged {
				return r.stopEarly(ctx, StopEmpty)
			}
			// The empty answer is left out of the history: some chat
			// templates render an empty assistant turn badly.
			r.nudged = true
			r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: nudgeText(len(r.offered) > 0)})
			r.emit(Event{Kind: EventNudge})
		case len(r.cfg.Format) > 0 && loopFormat == nil:
			return r.formatPass(ctx, msg)
		default:
			return r.finish(msg, StopDone), nil
		}
	}
}

// runCalls runs the calls of one answer in order. It returns a stop reason
// when the call limit or the stuck guard ends the loop; every call of the
// answer gets a tool message either way, so the history stays well formed.
func (r *run) runCalls(ctx context.Context, calls []llm.ToolCall) (string, error) {
	for i, call := range calls {
		reason := ""
		switch {
		case r.res.ToolCalls >= r.cfg.MaxToolCalls:
			reason = StopToolLimit
		case r.guard.add(callKey(call.Name, call.Arguments)) >= r.cfg.StuckRepeats:
			reason = StopStuck
		}
		if reason != "" {
			r.msgs = append(r.msgs, toolMessage(call, notRunText(reason, r.cfg)))
			for _, rest := range calls[i+1:] {
				r.msgs = append(r.msgs, toolMessage(rest, notRunAfterStop))
			}
			return reason, nil
		}
		if err := r.runCall(ctx, call); err != nil {
			return "", err
		}
	}
	return "", nil
}

// runCall runs one tool call and feeds its result back.
func (r *run) runCall(ctx context.Context, call llm.ToolCall) error {
	r.res.ToolCalls++
	ev := &report.ToolEvent{Call: r.res.ToolCalls, Name: call.Name, Args: call.Arguments}
	start := time.Now()
	var res ToolResult
	var err error
	if r.tools == nil {
		res = ToolResult{Text: fmt.Sprintf("unknown tool %q: this step offers no tools; write the answer instead", call.Name), IsError: true}
	} else {
		res, err = r.tools.Call(ctx, call.Name, call.Arguments)
	}
	elapsed := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("stage %s: tool call %d (%s) stopped: %w", r.cfg.Stage, ev.Call, call.Name, context.Cause(ctx))
		}
		ev.Err = err.Error()
		res.IsError = true
		if isBlank(res.Text) {
			res.Text = "The tool failed: " + err.Error()
		}
	}
	if res.Duration <= 0 {
		res.Duration = elapsed
	}
	ev.ResultSize = res.Size
	if ev.ResultSize <= 0 {
		ev.ResultSize = len(res.Text)
	}
	text, cut := cutMiddle(res.Text, r.cfg.MaxToolResultChars)
	if isBlank(text) {
		text = "(the tool returned no text)"
	}
	ev.Server, ev.Tool = res.Server, res.Tool
	ev.Truncated = res.Truncated || cut
	ev.IsError = res.IsError
	ev.Duration = res.Duration
	ev.Result = text
	if ev.IsError {
		r.res.ToolErrors++
		if ev.Err == "" {
			// What the tool said is the error: the trace, the run record
			// and the progress show it, never an empty "error:".
			ev.Err = errorText(res.Text)
		}
	}
	r.msgs = append(r.msgs, toolMessage(call, text))
	r.emit(Event{Kind: EventTool, Tool: ev})
	return nil
}

// errorText is the error a failed tool call reports: its text, cut to a
// line-sized message, or a sentence saying it gave none.
func errorText(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return "the tool reported an error and gave no text"
	}
	const max = 500
	if r := []rune(text); len(r) > max {
		text = string(r[:max]) + "…"
	}
	return text
}

// stopEarly ends a loop that stopped before a final answer, synthesizing
// the output when the config asks for it.
func (r *run) stopEarly(ctx context.Context, reason string) (*Result, error) {
	if !r.cfg.Synthesize {
		return r.end(reason), nil
	}
	r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: synthesizeText(reason, r.cfg)})
	r.emit(Event{Kind: EventSynthesize, StopReason: reason})
	resp, err := r.chat(ctx, PurposeSynthesize, nil, r.cfg.Format)
	if err != nil {
		return nil, err
	}
	if resp.Incomplete {
		reason = StopIncomplete
	}
	return r.finish(resp.Message, reason), nil
}

// formatPass turns the loop's final answer into the structured output
// Config.Format asks for, in one call without tools.
func (r *run) formatPass(ctx context.Context, draft llm.Message) (*Result, error) {
	r.msgs = append(r.msgs, draft, llm.Message{Role: llm.RoleUser, Content: formatText})
	r.emit(Event{Kind: EventFormat})
	resp, err := r.chat(ctx, PurposeFormat, nil, r.cfg.Format)
	if err != nil {
		return nil, err
	}
	reason := StopDone
	if resp.Incomplete {
		reason = StopIncomplete
	}
	return r.finish(resp.Message, reason), nil
}

// finish records msg as the final answer.
func (r *run) finish(msg llm.Message, reason string) *Result {
	r.msgs = append(r.msgs, msg)
	r.res.Raw = msg.Content
	r.res.Output = Clean(msg.Content)
	return r.end(reason)
}

// end closes the Run with reason.
func (r *run) end(reason string) *Result {
	r.res.StopReason = reason
	r.res.Incomplete = reason == StopIncomplete
	r.res.Messages = r.msgs
	r.emit(Event{Kind: EventStop, StopReason: reason})
	res := r.res
	return &res
}

// chat makes one model call and reports it.
func (r *run) chat(ctx context.Context, purpose string, tools []llm.Tool, format json.RawMessage) (*llm.ChatResponse, error) {
	req := llm.ChatRequest{
		Stage:    r.cfg.Stage,
		Model:    r.cfg.Model,
		Messages: r.msgs,
		Tools:    tools,
		Format:   format,
		Think:    r.cfg.Think,
		Options: llm.Options{
			Temperature: r.cfg.Temperature,
			Seed:        r.cfg.Seed,
			NumCtx:      r.cfg.NumCtx,
			MaxOutput:   r.cfg.MaxOutput,
		},
		Prefill: r.cfg.Prefill,
	}
	if r.observe != nil {
		req.OnDelta = func(d llm.Delta) {
			r.emit(Event{Kind: EventDelta, Delta: d.Content, Thinking: d.Thinking, Restart: d.Restart})
		}
	}
	r.res.ModelCalls++
	ev := &report.ModelEvent{Call: r.res.ModelCalls, Purpose: purpose, Model: r.cfg.Model,
		SentFrom: r.sent, Sent: records(r.msgs[r.sent:])}
	r.sent = len(r.msgs)
	for _, t := range tools {
		ev.Tools = append(ev.Tools, t.Name)
	}
	start := time.Now()
	resp, err := r.client.Chat(ctx, req)
	ev.Duration = time.Since(start)
	if err != nil {
		ev.Err = err.Error()
		r.emit(Event{Kind: EventModel, Model: ev})
		return nil, r.wrap(err, ev.Call)
	}
	if resp.Model != "" {
		ev.Model = resp.Model
	}
	ev.Server = resp.Server
	ev.DoneReason = resp.DoneReason
	ev.PromptTokens, ev.OutputTokens = resp.PromptTokens, resp.OutputTokens
	ev.PromptEstimate, ev.NumCtx = resp.PromptEstimate, resp.NumCtx
	ev.PromptMethod, ev.PromptGuess = string(resp.PromptCount.Method), resp.PromptGuess
	ev.LoadDuration, ev.PromptEval, ev.Eval = resp.LoadDuration, resp.PromptEval, resp.Eval
	ev.Attempts = resp.Attempts
	ev.Incomplete = resp.Incomplete
	if u := resp.Reuse; u != nil {
		ev.Reused, ev.ReuseMeasured, ev.ReuseBasis, ev.Own = u.Reused, u.Measured, u.Basis, u.Own
	}
	ev.ToolCalls = len(resp.Message.ToolCalls)
	reply := record(resp.Message)
	ev.Reply = &reply
	r.res.PromptTokens += resp.PromptTokens
	r.res.OutputTokens += resp.OutputTokens
	r.emit(Event{Kind: EventModel, Model: ev})
	return resp, nil
}

// wrap names the stage in a model-call error, unless the llm client
// already did (its errors carry the stage and a hint for the person).
func (r *run) wrap(err error, call int) error {
	var le *llm.Error
	if errors.As(err, &le) && le.Stage != "" {
		return err
	}
	return fmt.Errorf("stage %s: model call %d: %w", r.cfg.Stage, call, err)
}

func (r *run) emit(e Event) {
	if r.observe == nil {
		return
	}
	e.Stage = r.cfg.Stage
	r.observe(e)
}

// toolMessage is the RoleTool message answering call.
func toolMessage(call llm.ToolCall, text string) llm.Message {
	return llm.Message{Role: llm.RoleTool, Content: text, ToolName: call.Name, ToolCallID: call.ID}
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
