package snapshot

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// The words and Markdown the answers share.

// previewLines is how many lines of a file or a context part a hover shows.
const previewLines = 12

// FirstLine is the first line of s, trimmed, with " …" when more follow.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// approxTokens is an estimated token count: "~819 tokens", "~5.2k
// tokens", "~12k tokens", as the CLI and the Pipeline view write it.
func approxTokens(n int) string { return human.Estimate(n) }

// contextLine is an assembled context's estimate and its parts, as the
// hover's head and the probe document say it: "~1.2k tokens (system
// ~993, user ~208), estimated with bpe-heuristic".
func contextLine(cx *assemble.Context) string {
	return fmt.Sprintf("%s (system ~%s, user ~%s), estimated with %s", approxTokens(cx.Total), human.Approx(cx.SystemTokens), human.Approx(cx.UserTokens), cx.Estimator)
}

// countWords is a count of a prompt as the vocabulary writes it: exact
// ("1,253 tokens") when the model's tokenizer or server made it, an
// estimate ("~1.3k tokens") otherwise.
func countWords(c tokens.Count) string {
	if c.Known() {
		return human.Tokens(c.Tokens)
	}
	return approxTokens(c.Tokens)
}

// contextWords is a stage's context as its lens and its status row say
// it: "~1.2k tokens", or for a For each stage its first calls, "4 calls,
// ~5.2k tokens" (n nil: not counted yet).
func contextWords(sr *check.StageReport, n *promptcount.Stage) string {
	if n != nil && len(n.Items) > 1 {
		return callsText(n)
	}
	return approxTokens(sr.Context.Total)
}

// RecordText is what a run record says a stage's run used, as the hover
// and the Pipeline view say it: "4,504 tokens in / 312 out · 12 s ·
// qwen3.5:9b · 3 model calls, 2 of 5 tool calls failed"; a coding
// agent's run says who handed it in ("handed in by agent:claude-code over
// MCP · 12 s"): no model of icm's ran.
func RecordText(rec *state.Record) string {
	took := human.Duration(rec.Finished.Sub(rec.Started))
	if strings.HasPrefix(rec.Model, state.AgentPrefix) {
		return "handed in by " + rec.Model + " over MCP · " + took
	}
	parts := []string{human.InOut(rec.PromptTokens, rec.OutputTokens), took}
	if rec.Model != "" {
		parts = append(parts, rec.Model)
	}
	calls := human.Plural(rec.ModelCalls, "model call")
	switch {
	case rec.ToolErrors > 0:
		calls += ", " + human.Failed(rec.ToolErrors, rec.ToolCalls, "tool call")
	case rec.ToolCalls > 0:
		calls += ", " + human.Plural(rec.ToolCalls, "tool call")
	}
	return strings.Join(append(parts, calls), " · ")
}

// countLine is the hover's count of a stage's first call and how it was
// made: "1,300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countLine(n *promptcount.Stage) string {
	s := fmt.Sprintf("%s, %s", countWords(n.First), n.First.Describe())
	if n.ToolDefs > 0 {
		take := human.Count(n.Tools)
		if !n.First.Known() {
			take = "~" + human.Approx(n.Tools)
		}
		s += fmt.Sprintf(", of which %s take %s", human.Plural(n.ToolDefs, "tool definition"), take)
	}
	if len(n.Items) > 1 {
		s += fmt.Sprintf("; the whole stage %s in %d first calls", countWords(n.Total), len(n.Items))
	}
	if len(n.ToolsLeftOut) > 0 {
		s += "\n\n⚠ Counted without the tool definitions of " + strings.Join(n.ToolsLeftOut, "; ")
	}
	return s
}

// callsText is a For each stage's whole first calls, "4 calls, ~5.2k
// tokens", in the hover and the lens alike.
func callsText(n *promptcount.Stage) string {
	return human.Plural(len(n.Items), "call") + ", " + approxTokens(n.Total.Tokens)
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// shorten keeps the first n lines of s and says how many were left out.
func shorten(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(text string) string { return markdown.Fence("text", text) }

// clipText keeps the first n bytes of s, with "…" when it cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
