package ollamatest

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// promptText is the text whose token count stands for the prompt: each
// message's role, content, thinking and tool calls, then the offered tools
// and the format, as JSON. The real server counts its rendered template;
// this is a documented, deterministic stand-in for it.
func promptText(req *Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		if m.Thinking != "" {
			b.WriteByte('\n')
			b.WriteString(m.Thinking)
		}
		for _, c := range m.ToolCalls {
			b.WriteByte('\n')
			b.WriteString(c.Function.Name)
			b.WriteString(c.Function.Arguments.String())
		}
		b.WriteByte('\n')
	}
	if len(req.Tools) > 0 {
		b.WriteString(req.Tools.String())
	}
	b.Write(req.Format)
	return b.String()
}

// PromptTokens counts a request's prompt the way the server does: the
// configured CountTokens (default bytes/4, rounded up) over the role,
// content, thinking and tool calls of every message plus the tools' and
// format's JSON. Tests use it to know in advance what prompt_eval_count a
// call will report before clamping.
func (e *Engine) PromptTokens(req *Request) int {
	return e.cfg.CountTokens(promptText(req))
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
