package ollamatest

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// PromptTokens counts a request's prompt the way the server does: the
// configured CountTokens (default bytes/4, rounded up) over
// canned.PromptText (the role, content, thinking and tool calls of every
// message plus the tools' and format's JSON), as icm demo's canned model
// counts it. Tests use it to know in advance what prompt_eval_count a
// call will report before clamping.
func (e *Engine) PromptTokens(req *Request) int {
	return e.cfg.CountTokens(canned.PromptText(&req.ChatRequest))
}

// outputTokens counts an answer: content, thinking and tool calls.
func (e *Engine) outputTokens(t Turn) int {
	n := e.cfg.CountTokens(t.Content) + e.cfg.CountTokens(t.Thinking)
	for _, c := range t.ToolCalls {
		args, _ := json.Marshal(c.Arguments)
		n += e.cfg.CountTokens(c.Name + string(args))
	}
	return max(n, 1)
}

// cutToTokens returns the longest prefix of s (on a character boundary)
// that counts at most limit tokens; the count is assumed to grow with length.
func cutToTokens(s string, limit int, count func(string) int) string {
	if count(s) <= limit {
		return s
	}
	lo, hi := 0, len(s) // invariant: s[:lo] fits, s[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if count(s[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	for lo > 0 && !utf8.RuneStart(s[lo]) {
		lo--
	}
	return s[:lo]
}
