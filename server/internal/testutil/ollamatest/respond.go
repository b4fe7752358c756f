package ollamatest

import (
	"context"
	"errors"
	"time"
)

// errUnscripted answers a chat call that no rule, queued turn or default answers.
var errUnscripted = errors.New("ollamatest: no rule, queued turn or default answers this chat call; script one with On, Enqueue or Default")

// Reply is the engine's answer to one chat call: the scripted turn, shaped
// for the model and the request, with the counts a front reports.
type Reply struct {
	// Turn is the scripted turn after shaping: thinking dropped or inlined
	// to suit the request and model, content cut at num_predict.
	Turn Turn
	// Source names what answered: "rule N" (N counts rules from 1 in the
	// order added), "queue" or "default".
	Source string
	// NumCtx is the window the call ran with: options.num_ctx (or
	// Config.DefaultNumCtx when absent), capped by the model's context length.
	NumCtx int
	// PromptTokens is the counted prompt before any clamping.
	PromptTokens int
	// PromptEvalCount is what the server reports: PromptTokens clamped to
	// NumCtx, as Ollama silently cuts a prompt that does not fit.
	PromptEvalCount int
	// Truncated is true when the clamp cut the prompt.
	Truncated bool
	// EvalCount is the reported output count.
	EvalCount int
	// Received is when the call reached the engine; Queued is how long it
	// waited for a slot and Working how long it spent in its slot before
	// the answer (latency, delay, hold).
	Received        time.Time
	Queued, Working time.Duration
}

// Respond answers one chat call for an installed model. A turn that fails
// with a status returns at once; any other waits for a slot, the latency,
// its delay and hold (all cut short by ctx), and a hanging turn waits for
// ctx alone. The returned release gives the slot back: call it once the
// answer is written, so the time spent streaming counts as busy. Errors:
// ctx's when the client gave up, errBusy when the queue is full,
// errUnscripted when nothing in the script answers.
func (e *Engine) Respond(ctx context.Context, req *Request, m Model) (rep *Reply, release func(), err error) {
	received := time.Now()
	turn, source, ok := e.pick(req)
	if !ok {
		return nil, nil, errUnscripted
	}
	rep = &Reply{Turn: turn, Source: source, Received: received}
	if turn.failed() {
		return rep, func() {}, nil
	}

	release, err = e.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	inSlot := time.Now()
	rep.Queued = inSlot.Sub(received)
	err = pause(ctx, e.cfg.Latency+turn.Delay)
	if err == nil && turn.Hold != nil {
		select {
		case <-turn.Hold:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err == nil && turn.Hang {
		<-ctx.Done()
		err = ctx.Err()
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	rep.Working = time.Since(inSlot)
	e.shape(req, m, rep)
	return rep, release, nil
}

// shape fits the turn to the request and model and computes the counts.
func (e *Engine) shape(req *Request, m Model, rep *Reply) {
	t := &rep.Turn
	if t.Thinking != "" {
		on, set := req.ThinkRequested()
		switch {
		case set && !on:
			t.Thinking = ""
		case !m.Can("thinking"):
			t.Content = "<think>\n" + t.Thinking + "\n</think>\n\n" + t.Content
			t.Thinking = ""
		}
	}

	if limit, ok := req.IntOption("num_predict"); ok && limit > 0 && !t.flooding() && e.cfg.CountTokens(t.Content) > limit {
		t.Content = cutToTokens(t.Content, limit, e.cfg.CountTokens)
		t.DoneReason = "length"
		if t.EvalCount == 0 {
			t.EvalCount = limit
		}
	}

	rep.NumCtx = req.NumCtx()
	if rep.NumCtx <= 0 {
		rep.NumCtx = e.cfg.DefaultNumCtx
		if req.Window > 0 {
			rep.NumCtx = req.Window
		}
	}
	rep.NumCtx = min(rep.NumCtx, m.ContextLength)
	rep.PromptTokens = e.PromptTokens(req)
	rep.PromptEvalCount = rep.PromptTokens
	if rep.PromptEvalCount > rep.NumCtx {
		rep.PromptEvalCount, rep.Truncated = rep.NumCtx, true
	}
	if t.PromptEvalCount > 0 {
		rep.PromptEvalCount = t.PromptEvalCount
	}
	rep.EvalCount = t.EvalCount
	if rep.EvalCount <= 0 {
		rep.EvalCount = e.outputTokens(*t)
	}
	if t.DoneReason == "" {
		t.DoneReason = "stop"
	}
}

// nextToolCallID numbers tool calls like Ollama's "call_" ids, but
// predictably, so tests can compare them.
func (e *Engine) nextToolCallID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.toolCallN++
	return e.toolCallN
}
