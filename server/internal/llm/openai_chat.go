package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// Chat runs one call: it checks the counted prompt against the model's
// window before sending anything, retries transient failures with the
// shared policy, and rejects an answer whose prompt the server reports as
// cut. The window cannot be changed per call on this API, so a prompt that
// does not fit is an error, never a larger window.
func (o *OpenAI) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	ctx, cancel, model, info, err := begin(ctx, req, o.model, o.callTimeout, o.Show)
	if err != nil {
		return nil, err
	}
	defer cancel()
	tools, err := toOATools(req.Tools)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: err.Error(),
			Hint: "fix the tool's input schema: its top level must be a JSON Schema object"}
	}
	var toolsJSON []byte
	if len(tools) > 0 {
		toolsJSON, _ = json.Marshal(tools) // plain structs and valid raw JSON always encode
	}
	format, err := toOAFormat(req.Format)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: err.Error(),
			Hint: `format must be "json" or a JSON Schema object`}
	}
	msgs, err := toOAMessages(req.Messages)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: err.Error()}
	}
	est := o.estimator
	if est == nil {
		est = tokens.ForFamily(info.Family, info.ByteLevel)
	}
	maxOut := req.Options.MaxOutput
	if maxOut <= 0 {
		maxOut = o.maxOutput
	}
	window := req.Options.NumCtx
	if window <= 0 {
		window = info.ContextLength
	}
	pe := estimatePrompt(est, req.Messages, toolsJSON)
	if body, err := o.tokenizeBody(model, req); err == nil {
		// The server's own count, when it can give one, needs no margin.
		if c, ok := o.serverCount(ctx, body); ok {
			pe = pe.exactly(c)
		}
	}
	plan, ok := fixedWindow(est, pe, maxOut, window, info)
	if !ok {
		e := plan.tooLongError(req.Stage, info)
		e.Hint = strings.Replace(e.Hint, "raise [model] num_ctx", "raise [model] context_length to the server's window", 1)
		return nil, e
	}

	wire := oaRequest{
		Model:          model,
		Messages:       msgs,
		Tools:          tools,
		Stream:         req.OnDelta != nil,
		MaxTokens:      plan.answerTokens(),
		Temperature:    req.Options.Temperature,
		TopP:           req.Options.TopP,
		TopK:           req.Options.TopK,
		Seed:           req.Options.Seed,
		Stop:           req.Options.Stop,
		ResponseFormat: format,
	}
	if wire.Stream {
		wire.StreamOptions = &oaStreamOptions{IncludeUsage: true}
	}
	if req.Think != nil {
		wire.ChatTemplateKwargs = map[string]any{"enable_thinking": *req.Think}
	}
	body, err := json.Marshal(&wire)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: "unable to encode the request", Err: err}
	}

	start := o.now()
	delivered := false
	r := o.newRetrier()
	var res *oaResult
	f := r.run(ctx, func() *failure {
		var f *failure
		res, f = o.chatAttempt(ctx, body, req.OnDelta, &delivered, capFor(plan.answerTokens()))
		if f != nil && delivered {
			// Part of the answer reached the caller: a retry would repeat it.
			f.retry = retryNever
		}
		return f
	})
	if f != nil {
		var e *Error
		if f.tooLong {
			e = plan.cutError(req.Stage, info, 0, true)
			e.Status = f.status
			e.Msg += ": " + f.msg
			e.Hint = "the server's window is smaller than icm was told: set [model] context_length to the window the server runs with, and shorten the stage's inputs"
		} else {
			e = f.toError(req.Stage, model, r.attempts, r.elapsed())
		}
		e.Attempts = r.attempts
		if e.Kind == KindModelMissing {
			e.Hint = fmt.Sprintf("the server has no model %q: check [model] name (or the contract's model:) against the server's GET %s/models", model, o.base)
			explainMissing(ctx, e, fmt.Sprintf("the server at %s", o.base), o.Models, false)
		}
		return nil, e
	}
	if !res.capped && plan.wasCutOpenAI(res.usage.PromptTokens, o.lowCountRatio) {
		e := plan.cutError(req.Stage, info, res.usage.PromptTokens, false)
		e.Attempts = r.attempts
		return nil, e
	}
	return res.response(model, o.base.String(), plan, r.attempts, o.now().Sub(start)), nil
}

// fixedWindow plans a call against a window the server fixed. window 0
// means unknown: nothing can be checked before the call, and the server's
// own refusal of an over-long prompt is what catches it.
func fixedWindow(est tokens.Estimator, pe promptEstimate, maxOut, window int, info *ModelInfo) (windowPlan, bool) {
	if window <= 0 {
		p := windowPlan{estimate: pe.total, textEstimate: pe.text, estimator: est.Name(), known: pe.known, heuristic: pe.heuristic, maxOutput: maxOut, fixed: true}
		if pe.known.Known() {
			p.estimator = pe.known.Label()
		}
		return p, true
	}
	limited := *info
	limited.ContextLength = window
	return planWindow(est, pe, maxOut, window, 0, &limited)
}

// answerTokens is max_tokens for the call: the room for the answer, no
// more than the window leaves after the prompt (with the estimator's
// margin), since these servers refuse a prompt plus max_tokens that
// overflows the window rather than stopping early.
func (p *windowPlan) answerTokens() int {
	if p.window <= 0 {
		return p.maxOutput
	}
	room := p.window - p.estimate - p.margin()
	return max(min(p.maxOutput, room), p.answerRoom())
}

// wasCutOpenAI is wasCut for a server whose window is fixed and maybe
// unknown: with no window only the low-count rule applies.
func (p *windowPlan) wasCutOpenAI(evaluated int, ratio float64) bool {
	if p.window > 0 {
		return p.wasCut(evaluated, ratio)
	}
	return evaluated > 0 && ratio > 0 && float64(evaluated) < ratio*float64(p.textEstimate) && p.textEstimate-evaluated > lowCountSlack
}

// oaResult gathers one answer, streamed or not.
type oaResult struct {
	content, reasoning strings.Builder
	calls              toolCallParts
	toolCalls          []ToolCall
	finish             string
	usage              oaUsage
	timings            *oaTimings
	model              string
	// chunks counts the events of the answer; capped says it went past
	// its cap and was cut there.
	chunks int
	capped bool
}

// chatAttempt makes one request. delivered becomes true once a delta has
// been passed to onDelta. An answer past limit ends there, as an
// incomplete answer holding what came up to the cap.
func (o *OpenAI) chatAttempt(ctx context.Context, body []byte, onDelta func(Delta), delivered *bool, limit answerCap) (*oaResult, *failure) {
	res := &oaResult{}
	stream := onDelta != nil
	f := o.exchangeBounded(ctx, "/chat/completions", body, stream, bounds{bytes: limit.wire, total: o.streamTotal}, func(raw []byte) *failure {
		var a oaAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			return &failure{kind: KindStream, retry: retryOnce, msg: "unable to read the server's answer", err: err}
		}
		if msg := a.streamError(); msg != "" {
			f := &failure{kind: KindStream, retry: retryOnce, msg: "the server reported an error mid-answer: " + msg,
				hint: "see the model server's log; the answer so far is discarded"}
			if isContextOverflow(strings.ToLower(msg)) {
				f.tooLong, f.retry = true, retryNever
			}
			return f
		}
		if a.Model != "" {
			res.model = a.Model
		}
		if a.Usage != nil {
			res.usage = *a.Usage
		}
		if a.Timings != nil {
			res.timings = a.Timings
		}
		if len(a.Choices) > 0 {
			// icm asks for one choice.
			c := a.Choices[0]
			m := c.Message
			if m == nil {
				m = c.Delta
			}
			if m != nil {
				res.chunks++
				res.add(m, stream, onDelta, delivered)
			}
			if limit.over(res.chunks, res.content.Len()+res.reasoning.Len(), res.usage.CompletionTokens) {
				return limit.failure()
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				res.finish = *c.FinishReason
			}
		}
		return nil
	})
	if f != nil && f.capped {
		res.capped = true
		return res, nil
	}
	if f != nil {
		return nil, f
	}
	if res.finish == "" {
		return nil, &failure{kind: KindStream, retry: retryOnce, msg: "the answer ended before the server gave a finish reason",
			hint: "the server may have stopped the model (see its log); the partial answer is discarded"}
	}
	calls, err := fromOAToolCalls(res.calls.list(), o.nextCallID)
	if err != nil {
		// Sampling may go differently on a second attempt.
		return nil, &failure{kind: KindStream, retry: retryOnce, msg: err.Error(),
			hint: "try again; if it persists, the model or the server's tool-call parser does not produce valid JSON arguments"}
	}
	res.toolCalls = calls
	return res, nil
}

// add takes one message or delta into the answer.
func (r *oaResult) add(m *oaAnswerMessage, stream bool, onDelta func(Delta), delivered *bool) {
	content := ""
	if m.Content != nil {
		content = *m.Content
	}
	reasoning := m.ReasoningContent + m.Reasoning
	r.content.WriteString(content)
	r.reasoning.WriteString(reasoning)
	for _, tc := range m.ToolCalls {
		r.calls.add(tc)
	}
	if stream && (content != "" || reasoning != "") {
		*delivered = true
		onDelta(Delta{Content: content, Thinking: reasoning})
	}
}

// response builds the caller's answer. took is the call's wall time, the
// only duration such servers report in general (llama-server adds its
// prompt and generation times, which are used when present).
func (r *oaResult) response(model, server string, plan windowPlan, attempts int, took time.Duration) *ChatResponse {
	if r.model != "" {
		model = r.model
	}
	content, thinking, finish := r.content.String(), r.reasoning.String(), r.finish
	if r.capped {
		finish = DoneAnswerCap
		content, thinking = truncateText(content, capBaseBytes), truncateText(thinking, capBaseBytes)
	}
	resp := &ChatResponse{
		Model: model,
		Message: Message{
			Role:      RoleAssistant,
			Content:   content,
			Thinking:  thinking,
			ToolCalls: r.toolCalls,
		},
		DoneReason:     finish,
		Incomplete:     finish == "length" || r.capped,
		PromptTokens:   r.usage.PromptTokens,
		OutputTokens:   r.usage.CompletionTokens,
		PromptEstimate: plan.estimate,
		PromptCount:    plan.count(),
		PromptGuess:    plan.heuristic,
		NumCtx:         plan.window,
		Server:         server,
		TotalDuration:  took,
		Attempts:       attempts,
	}
	if t := r.timings; t != nil {
		resp.PromptEval = time.Duration(t.PromptMS * float64(time.Millisecond))
		resp.Eval = time.Duration(t.PredictedMS * float64(time.Millisecond))
	}
	if n := cachedTokens(r.usage, r.timings); n != nil {
		resp.Reuse = &Reuse{Reused: *n, Measured: true, Basis: ReportedBasis}
	}
	return resp
}
