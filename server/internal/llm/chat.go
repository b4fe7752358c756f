package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// Chat runs one call: it sizes the window from the counted prompt,
// refuses a prompt that cannot fit, retries transient failures, and
// rejects an answer to a prompt the server cut (after one try with a
// larger window when the model allows it).
func (o *Ollama) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	ctx, cancel, model, info, err := begin(ctx, req, o.model, o.callTimeout, o.Show)
	if err != nil {
		return nil, err
	}
	defer cancel()
	counted, err := o.countRequest(model, req)
	if err != nil {
		return nil, err
	}
	apiTools := counted.Tools
	var toolsJSON []byte
	if len(apiTools) > 0 {
		if toolsJSON, err = json.Marshal(apiTools); err != nil {
			return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: "unable to encode the tools", Err: err}
		}
	}
	format, err := normaliseFormat(req.Format)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: err.Error(),
			Hint: `format must be "json" or a JSON Schema object`}
	}
	est := o.estimator
	if est == nil {
		est = tokens.ForFamily(info.Family, info.ByteLevel)
	}
	maxOut := req.Options.MaxOutput
	if maxOut <= 0 {
		maxOut = o.maxOutput
	}
	pe := estimatePrompt(est, req.Messages, toolsJSON)
	exact, isExact := o.exactPrompt(ctx, model, counted)
	if isExact {
		pe = pe.exactly(exact.count)
	}
	plan, ok := planWindow(est, pe, maxOut, req.Options.NumCtx, o.models.window(model), info)
	if !ok {
		return nil, plan.tooLongError(req.Stage, info)
	}

	wire := api.ChatRequest{
		Model:    model,
		Messages: counted.Messages,
		Tools:    apiTools,
		Format:   format,
		Stream:   ptr(req.OnDelta != nil),
		// Refuse rather than cut an over-long prompt, and stop rather than
		// forget the prompt's start when the answer fills the window.
		Truncate: ptr(false),
		Shift:    ptr(false),
	}
	wire.Think = counted.Think

	attempts := 0
	delivered := false
	grown := false
	for {
		wire.Options = wireOptions(req.Options, plan.window, maxOut)
		pc := req.Prefill.begin(o.base.String(), model, plan.window, exact.tokens)
		body, err := json.Marshal(&wire)
		if err != nil {
			return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: "unable to encode the request", Err: err}
		}
		if delivered {
			req.OnDelta(Delta{Restart: true})
			delivered = false
		}
		r := o.newRetrier()
		var res *chatResult
		f := r.run(ctx, func() *failure {
			var f *failure
			res, f = o.chatAttempt(ctx, body, req.OnDelta, &delivered, capFor(maxOut))
			if f == nil && len(apiTools) > 0 {
				f = res.lostToolCall()
			}
			if f != nil && delivered {
				// Part of the answer reached the caller: a retry would repeat it.
				f.retry = retryNever
			}
			return f
		})
		attempts += r.attempts
		var reuse *Reuse
		if f == nil {
			reuse = pc.end(exact.answerTokens(res.content.String()))
		} else {
			pc.end(nil)
		}
		if f == nil || f.tooLong {
			// The server loaded the model with this window; keep it.
			o.models.raiseWindow(model, plan.window)
		}
		cut := false
		switch {
		case f != nil && f.tooLong:
			cut = true
		case f != nil:
			e := f.toError(req.Stage, model, r.attempts, r.elapsed())
			e.Attempts = attempts
			return nil, e
		case res.capped:
			// Cut off before the server's counts came: nothing to judge.
		default:
			cut = plan.wasCut(res.final.PromptEvalCount, o.lowCountRatio)
		}
		if cut {
			if !grown && plan.grow() {
				grown = true
				continue
			}
			evaluated := 0
			if f == nil {
				evaluated = res.final.PromptEvalCount
			}
			e := plan.cutError(req.Stage, info, evaluated, f != nil)
			e.Attempts = attempts
			if f != nil {
				e.Status = f.status
				e.Msg += ": " + f.msg
			}
			return nil, e
		}
		out := res.response(model, o.base.String(), plan, attempts)
		out.Reuse = res.reuse(reuse)
		return out, nil
	}
}

// chatResult gathers one answer, streamed or not.
type chatResult struct {
	content   strings.Builder
	thinking  strings.Builder
	toolCalls []api.ToolCall
	final     api.ChatResponse
	done      bool
	// chunks counts the chunks of the answer; capped says it went past
	// its cap and was cut there.
	chunks int
	capped bool
	// cached is the server's own count of reused prompt tokens, when it
	// sends one.
	cached *int
}

// reuse is the call's Reuse: the server's figure where it gives one,
// with what icm knows of the prompt, else icm's prediction.
func (r *chatResult) reuse(predicted *Reuse) *Reuse {
	if r.cached == nil {
		return predicted
	}
	out := &Reuse{}
	if predicted != nil {
		*out = *predicted
	}
	out.Reused, out.Measured, out.Basis = *r.cached, true, ReportedBasis
	return out
}

// chatChunk is one line of /api/chat's answer, or an error object.
type chatChunk struct {
	api.ChatResponse
	// PromptEvalCachedCount is how many of the prompt's tokens newer
	// servers (not v0.17) say they took from their cache; it is part of
	// prompt_eval_count.
	PromptEvalCachedCount *int   `json:"prompt_eval_cached_count"`
	Error                 string `json:"error"`
}

// chatAttempt makes one request. delivered becomes true once a delta has
// been passed to onDelta. An answer past limit ends there, as an
// incomplete answer holding what came up to the cap.
func (o *Ollama) chatAttempt(ctx context.Context, body []byte, onDelta func(Delta), delivered *bool, limit answerCap) (*chatResult, *failure) {
	res := &chatResult{}
	stream := onDelta != nil
	f := o.exchangeBounded(ctx, "/api/chat", body, stream, bounds{bytes: limit.wire, total: o.streamTotal}, func(raw []byte) *failure {
		var c chatChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return &failure{kind: KindStream, retry: retryOnce, msg: "unable to read a chunk of the answer", err: err}
		}
		if c.Error != "" {
			f := &failure{kind: KindStream, retry: retryOnce, msg: "the server reported an error mid-answer: " + c.Error,
				hint: "see the Ollama server log; the answer so far is discarded"}
			lower := strings.ToLower(c.Error)
			switch {
			case isContextOverflow(lower):
				f.tooLong, f.retry = true, retryNever
			case isRunnerStopped(lower):
				f.kind, f.hint = KindRunnerStopped, runnerStoppedHint(lower)
			}
			return f
		}
		if res.done {
			return nil // nothing follows the final chunk; ignore stray data
		}
		m := c.Message
		res.chunks++
		res.content.WriteString(m.Content)
		res.thinking.WriteString(m.Thinking)
		if limit.over(res.chunks, res.content.Len()+res.thinking.Len(), c.EvalCount) {
			return limit.failure()
		}
		res.toolCalls = append(res.toolCalls, m.ToolCalls...)
		if stream && (m.Content != "" || m.Thinking != "") {
			*delivered = true
			onDelta(Delta{Content: m.Content, Thinking: m.Thinking})
		}
		if c.Done {
			res.done = true
			res.final = c.ChatResponse
			res.cached = c.PromptEvalCachedCount
		}
		return nil
	})
	if f != nil && f.capped {
		res.capped, res.done = true, true
		return res, nil
	}
	if f != nil {
		return nil, f
	}
	if !res.done {
		return nil, &failure{kind: KindStream, retry: retryOnce, msg: "the answer ended before the server marked it done",
			hint: "Ollama ends an answer this way when the model repeats one token more than 30 times (a loop, common at low temperature with small models) or when the model stopped; the partial answer is discarded: raise the temperature, or check the server's log"}
	}
	return res, nil
}

// lostToolCall reports an answer whose tokens all vanished: no content,
// no thinking, no tool call, yet the model generated several tokens.
// Ollama drops a tool call it cannot parse this way (ollama#17274), and
// an empty answer would otherwise pass for a finished one. Sampling may
// go differently on a second attempt, so it gets one.
func (r *chatResult) lostToolCall() *failure {
	if r.capped || r.content.Len() > 0 || r.thinking.Len() > 0 || len(r.toolCalls) > 0 || r.final.EvalCount <= 2 || r.final.DoneReason == "length" {
		return nil
	}
	return &failure{kind: KindStream, retry: retryOnce,
		msg:  fmt.Sprintf("the model generated %d tokens but the server returned no text and no tool call (likely a tool call it could not parse)", r.final.EvalCount),
		hint: "try again; if it persists, the model's tool-call format may not match its template (see the Ollama server log)"}
}

// response builds the caller's answer.
func (r *chatResult) response(model, server string, plan windowPlan, attempts int) *ChatResponse {
	f := r.final
	if f.Model != "" {
		model = f.Model
	}
	content, thinking := r.content.String(), r.thinking.String()
	if r.capped {
		f.DoneReason = DoneAnswerCap
		content, thinking = truncateText(content, capBaseBytes), truncateText(thinking, capBaseBytes)
	}
	return &ChatResponse{
		Model: model,
		Message: Message{
			Role:      RoleAssistant,
			Content:   content,
			Thinking:  thinking,
			ToolCalls: fromAPIToolCalls(r.toolCalls),
		},
		DoneReason:     f.DoneReason,
		Incomplete:     f.DoneReason == "length" || r.capped,
		PromptTokens:   f.PromptEvalCount,
		OutputTokens:   f.EvalCount,
		PromptEstimate: plan.estimate,
		PromptCount:    plan.count(),
		PromptGuess:    plan.heuristic,
		NumCtx:         plan.window,
		Server:         server,
		TotalDuration:  f.TotalDuration,
		LoadDuration:   f.LoadDuration,
		PromptEval:     f.PromptEvalDuration,
		Eval:           f.EvalDuration,
		Attempts:       attempts,
	}
}

// wireOptions builds the options object; num_ctx and num_predict are
// always set.
func wireOptions(o Options, window, maxOut int) map[string]any {
	m := map[string]any{"num_ctx": window, "num_predict": maxOut}
	if o.Temperature != nil {
		m["temperature"] = *o.Temperature
	}
	if o.TopK > 0 {
		m["top_k"] = o.TopK
	}
	if o.TopP != nil {
		m["top_p"] = *o.TopP
	}
	if o.Seed != nil {
		m["seed"] = *o.Seed
	}
	if len(o.Stop) > 0 {
		m["stop"] = o.Stop
	}
	return m
}

// normaliseFormat accepts "json" (quoted or bare) or a JSON Schema object.
func normaliseFormat(f json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(f)
	switch {
	case len(t) == 0 || bytes.Equal(t, []byte("null")):
		return nil, nil
	case bytes.Equal(t, []byte("json")) || bytes.Equal(t, []byte(`"json"`)):
		return json.RawMessage(`"json"`), nil
	case t[0] == '{' && json.Valid(t):
		return json.RawMessage(t), nil
	}
	return nil, fmt.Errorf("unusable output format %.60q", string(t))
}

func ptr[T any](v T) *T { return &v }
