package lsp

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/promptcount"
)

// countLine is the hover's count of a stage's first call and how it was
// made: "1,300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countLine(n *promptcount.Stage) string {
	s := fmt.Sprintf("%d tokens, %s", n.First.Tokens, n.First.Describe())
	if n.ToolDefs > 0 {
		s += fmt.Sprintf(", of which %d tool definitions take %d", n.ToolDefs, n.Tools)
	}
	if len(n.Items) > 1 {
		s += fmt.Sprintf("; the whole stage %d tokens in %d first calls", n.Total.Tokens, len(n.Items))
	}
	if len(n.ToolsLeftOut) > 0 {
		s += "\n\n⚠ Counted without the tool definitions of " + strings.Join(n.ToolsLeftOut, "; ")
	}
	return s
}

// callsText is a For each stage's whole first calls, "4 calls, ~5.2k
// tokens", in the hover and the lens alike.
func callsText(n *promptcount.Stage) string {
	return plural(len(n.Items), "call") + ", " + approxTokens(n.Total.Tokens)
}
