package lsp

import (
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/promptcount"
)

// callsText is a For each stage's whole first calls, "4 calls, ~5.2k
// tokens", in the hover and the lens alike.
func callsText(n *promptcount.Stage) string {
	return snapshot.Plural(len(n.Items), "call") + ", " + approxTokens(n.Total.Tokens)
}
