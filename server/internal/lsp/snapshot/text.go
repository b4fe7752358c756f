package snapshot

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/promptcount"
)

// The words and Markdown the answers share.

// previewLines is how many lines of a file or a context part a hover shows.
const previewLines = 12

// Plural is "1 tool call", "3 tool calls" (the one vocabulary's).
func Plural(n int, what string) string { return human.Plural(n, what) }

// FirstLine is the first line of s, trimmed, with " …" when more follow.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// thousands writes 4504 as 4,504.
func thousands(n int) string { return human.Count(n) }

// approxTokens is an estimated token count: "~819 tokens", "~5.2k
// tokens", "~12k tokens", as the CLI and the Pipeline view write it.
func approxTokens(n int) string { return human.Estimate(n) }

// countLine is the hover's count of a stage's first call and how it was
// made: "1,300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countLine(n *promptcount.Stage) string {
	s := fmt.Sprintf("%s, %s", human.Tokens(n.First.Tokens), n.First.Describe())
	if n.ToolDefs > 0 {
		s += fmt.Sprintf(", of which %s take %s", human.Plural(n.ToolDefs, "tool definition"), human.Count(n.Tools))
	}
	if len(n.Items) > 1 {
		s += fmt.Sprintf("; the whole stage %s in %d first calls", human.Tokens(n.Total.Tokens), len(n.Items))
	}
	if len(n.ToolsLeftOut) > 0 {
		s += "\n\n⚠ Counted without the tool definitions of " + strings.Join(n.ToolsLeftOut, "; ")
	}
	return s
}

// callsText is a For each stage's whole first calls, "4 calls, ~5.2k
// tokens", in the hover and the lens alike.
func callsText(n *promptcount.Stage) string {
	return Plural(len(n.Items), "call") + ", " + approxTokens(n.Total.Tokens)
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
