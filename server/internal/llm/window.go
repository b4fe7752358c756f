package llm

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// Sizing the context window (num_ctx).
//
// The prompt is counted with the model family's estimator: messages
// (role, content, tool calls), the tool schemas as the template will
// render them (JSON), and a few tokens per message for the chat
// template's markers. Past thinking is not counted: most templates drop
// it, and an estimate above the real count is what makes the low-count
// check below misfire. An estimate below the real count is caught by
// the server instead: every call sends truncate=false, so a prompt over
// the window is refused with a 400 and retried once with a larger window.
//
// window = need rounded up on a ladder (2048, 3072, 4096, 6144, 8192,
// 12288, ...), where need = estimate + margin (15% for the heuristic,
// none for an exact byte count) + the answer's room (max output). Ollama
// reloads a model whenever num_ctx changes, so the window never shrinks
// for a model during the client's life, and the ladder keeps the number
// of distinct sizes small. It is capped by the model's context length.

const (
	// perMessageTokens covers a message's template markers (ChatML:
	// <|im_start|>, newline, <|im_end|>, newline) besides its role.
	perMessageTokens = 4
	// toolsTokens covers the text a template wraps the tool list in.
	toolsTokens = 32
	// replyTokens covers the header of the answer the template opens.
	replyTokens = 4
	// minWindow is the smallest window asked for: below it a reload costs
	// more than the memory saved.
	minWindow = 2048
	// minAnswerRoom is the least room for an answer (tokens.MinAnswerRoom).
	minAnswerRoom = tokens.MinAnswerRoom
	// lowCountSlack keeps the low-count check off small prompts, where a
	// template that renders less than estimated is a large share.
	lowCountSlack = 64
)

// promptEstimate is icm's count of a chat call's prompt.
type promptEstimate struct {
	// total is everything: it sizes the window.
	total int
	// text leaves out the JSON the template renders (tool schemas, tool
	// call arguments). The heuristic charges JSON one token per
	// punctuation mark where BPE vocabularies merge runs like `":"` and
	// `","`, so on JSON it can count twice the real tokens; text is what
	// the low-count check compares with, since no cut prompt keeps it.
	text int
	// heuristic is the default estimator's count of the whole prompt,
	// kept even when the count is exact: calibration compares it with
	// the server's count.
	heuristic int
	// known is set when total is the server's own count (exact or from
	// /tokenize), with its method; no margin is added then.
	known tokens.Count
}

// exactly replaces the estimate with a count the server will agree with.
func (pe promptEstimate) exactly(c tokens.Count) promptEstimate {
	pe.total, pe.text, pe.known = c.Tokens, c.Tokens, c
	return pe
}

// estimatePrompt counts the prompt a chat call sends.
func estimatePrompt(est tokens.Estimator, msgs []Message, toolsJSON []byte) promptEstimate {
	n := replyTokens
	jsonPart := 0
	for _, m := range msgs {
		n += perMessageTokens + est.Count(m.Role) + est.Count(m.Content)
		if m.ToolName != "" {
			n += est.Count(m.ToolName)
		}
		for _, tc := range m.ToolCalls {
			args, _ := json.Marshal(tc.Arguments)
			n += perMessageTokens + est.Count(tc.Name)
			jsonPart += est.Count(string(args))
		}
	}
	if len(toolsJSON) > 0 {
		n += toolsTokens
		jsonPart += est.Count(string(toolsJSON))
	}
	pe := promptEstimate{total: n + jsonPart, text: n, heuristic: n + jsonPart}
	if est != tokens.Default {
		pe.heuristic = estimatePrompt(tokens.Default, msgs, toolsJSON).heuristic
	}
	return pe
}

// windowPlan is the window of one call and what it was sized from.
type windowPlan struct {
	estimate int
	// textEstimate is the estimate without JSON (see promptEstimate).
	textEstimate int
	estimator    string
	// known is the count's method when the estimate is the server's own
	// count (exact or /tokenize); zero for a heuristic estimate.
	known tokens.Count
	// heuristic is the default estimator's count, for calibration.
	heuristic int
	maxOutput int
	window    int
	// modelMax is the model's context length (0 when unknown).
	modelMax int
	// fixed: the request set the window; it is not grown.
	fixed bool
}

// ladder rounds n up to 2048, 3072, 4096, 6144, 8192, 12288, ...
func ladder(n int) int {
	w := minWindow
	for {
		if n <= w {
			return w
		}
		if n <= w*3/2 {
			return w * 3 / 2
		}
		if w > math.MaxInt/4 {
			return n
		}
		w *= 2
	}
}

// planWindow sizes the window for a prompt of estimate tokens (requested:
// the request's own num_ctx; used: the largest window used so far for the
// model). It reports false when the prompt cannot fit with room for an
// answer.
func planWindow(est tokens.Estimator, pe promptEstimate, maxOutput, requested, used int, info *ModelInfo) (windowPlan, bool) {
	estimate := pe.total
	p := windowPlan{estimate: estimate, textEstimate: pe.text, estimator: est.Name(), known: pe.known, heuristic: pe.heuristic,
		maxOutput: maxOutput, modelMax: info.ContextLength}
	if pe.known.Known() {
		p.estimator = pe.known.Label()
	}
	if requested > 0 {
		p.fixed = true
		p.window = requested
	} else {
		p.window = max(ladder(estimate+p.margin()+maxOutput), used)
	}
	if p.modelMax > 0 && p.window > p.modelMax {
		p.window = p.modelMax
	}
	return p, p.fits()
}

// margin is the room kept for the estimate's error: none for a count the
// server agrees with or a byte count, 15% for the heuristic.
func (p *windowPlan) margin() int {
	if p.known.Known() || p.estimator == tokens.Bytes.Name() {
		return 0
	}
	return int(math.Ceil(float64(p.estimate) * tokens.EstimateMargin))
}

// count is the pre-call count the plan used, with its method.
func (p *windowPlan) count() tokens.Count {
	if p.known.Known() {
		return p.known
	}
	return tokens.Count{Tokens: p.estimate, Method: tokens.Estimated}
}

// answerRoom is the least room a call needs after the prompt.
func (p *windowPlan) answerRoom() int { return min(p.maxOutput, minAnswerRoom) }

// fits reports whether the prompt may leave room for an answer: it is
// refused before the call only when it surely cannot (the count the
// server agrees with, or a heuristic estimate beyond its error margin).
// Within the margin the call is made: every call sends truncate=false, so
// a prompt that is really over is refused by the server, which says so
// for certain.
func (p *windowPlan) fits() bool {
	return !tokens.SurelyOver(p.estimate, p.answerRoom(), p.window, p.known.Known() || p.estimator == tokens.Bytes.Name())
}

// grow doubles the window (on the ladder, within the model's length)
// after the server cut or refused the prompt. It reports false when the
// window is fixed or already as large as the model allows.
func (p *windowPlan) grow() bool {
	if p.fixed {
		return false
	}
	next := ladder(p.window * 2)
	if p.modelMax > 0 && next > p.modelMax {
		next = p.modelMax
	}
	if next <= p.window {
		return false
	}
	p.window = next
	return true
}

// wasCut reports whether the server's prompt_eval_count shows a cut
// prompt.
//
//   - evaluated >= window: the prompt filled the window, which a server
//     that truncates does to exactly this value (seen: 512 of 15,000 with
//     num_ctx 512).
//   - evaluated < ratio × the estimate of the prompt's text (ratio 0.5
//     by default; JSON left out, see promptEstimate), more than
//     lowCountSlack tokens apart: some servers keep about half the
//     window after an overflow (ollama#17427). The heuristic estimator
//     errs about ±15% on prose and more on CJK-heavy or symbol-heavy
//     text, so half is well outside its error; a byte count is exact.
//   - evaluated == 0: unknown, not a cut. Ollama omits prompt_eval_count
//     when it is zero, and some older servers reported only the tokens
//     evaluated beyond a cached prefix (a cache hit then looks like a
//     tiny prompt). Ollama 0.17 reports the whole prompt, cached prefix
//     included, so a cache hit does not lower it; for servers that do
//     count only new tokens, WithLowCountRatio(0) turns the second rule
//     off and leaves the first, which a cache hit cannot trigger.
func (p *windowPlan) wasCut(evaluated int, ratio float64) bool {
	if evaluated <= 0 {
		return false
	}
	if evaluated >= p.window {
		return true
	}
	return ratio > 0 && float64(evaluated) < ratio*float64(p.textEstimate) && p.textEstimate-evaluated > lowCountSlack
}

// tooLongError is the refusal before any call.
func (p *windowPlan) tooLongError(stage string, info *ModelInfo) *Error {
	msg := fmt.Sprintf("the prompt is about %d tokens (%s estimate) and the answer needs at least %d more, but the context window is %d tokens",
		p.estimate, p.estimator, p.answerRoom(), p.window)
	if p.known.Known() {
		msg = fmt.Sprintf("the prompt is %d tokens (%s) and the answer needs at least %d more, but the context window is %d tokens",
			p.estimate, p.estimator, p.answerRoom(), p.window)
	}
	return &Error{Kind: KindPromptTooLong, Stage: stage, Model: info.Name, Msg: msg,
		Hint: p.advice(info), Estimate: p.estimate, Window: p.window}
}

// cutError is the failure after the server cut or refused the prompt.
func (p *windowPlan) cutError(stage string, info *ModelInfo, evaluated int, refused bool) *Error {
	var msg string
	if refused {
		msg = fmt.Sprintf("the server refused the prompt as longer than the %d-token window (icm estimated %d tokens, %s)",
			p.window, p.estimate, p.estimator)
	} else {
		msg = fmt.Sprintf("the server evaluated %d prompt tokens of about %d sent (%s estimate) in a %d-token window: the prompt was cut, so the answer is not used",
			evaluated, p.estimate, p.estimator, p.window)
	}
	return &Error{Kind: KindTruncated, Stage: stage, Model: info.Name, Msg: msg,
		Hint: p.advice(info), Estimate: p.estimate, Window: p.window, Evaluated: evaluated}
}

// advice says what to do about a prompt that does not fit.
func (p *windowPlan) advice(info *ModelInfo) string {
	s := "shorten the stage's inputs or section-scope them in CONTEXT.md (path#Heading)"
	switch {
	case p.modelMax > 0 && p.window < p.modelMax:
		s += fmt.Sprintf(", raise [model] num_ctx (this model allows up to %d)", p.modelMax)
	case p.modelMax == 0:
		s += ", raise [model] num_ctx"
	}
	return s + ", or use a model with a larger window than " + info.describe()
}
