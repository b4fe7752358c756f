package lsp

import (
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/promptcount"
)

// hover answers textDocument/hover: what the snapshot says is under the
// cursor (snapshot.File.Hover), as Markdown.
func (s *Server) hover(gctx *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	f, err := s.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	h, err := f.Hover(s.ctxOf(gctx), fromPosition(p.Position))
	if err != nil || h == nil {
		return nil, err
	}
	out := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown}}
	if h.Range != nil {
		r := toRange(f.Doc.Mapper(), *h.Range)
		out.Range = &r
	}
	return out, nil
}

// partsTable renders the token count of every part, as `icm probe`
// does, then what the first call adds as the server sees it: the tool
// definitions and the chat template (n may be nil: not counted; item
// picks a For each item's call, 0 the first).
func partsTable(cx *assemble.Context, n *promptcount.Stage, item int) string {
	var b strings.Builder
	b.WriteString("| part | layer | role | tokens |\n| --- | --- | --- | ---: |\n")
	for _, p := range cx.Parts {
		label := cell(p.Label)
		if n := p.Note(); n != "" {
			label += " *(" + n + ")*"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", label, p.LayerName(), p.Role, p.Tokens)
	}
	fmt.Fprintf(&b, "| headings and framing | | | %d |\n| **total** | | | **%d** |\n", cx.Framing(), cx.Total)
	if n == nil {
		return b.String()
	}
	first := n.First
	if item > 0 && item <= len(n.Items) {
		first = n.Items[item-1].Count
	}
	if n.ToolDefs > 0 {
		fmt.Fprintf(&b, "| tool definitions (%d tools, %s) | tools | system | %d |\n", n.ToolDefs, first.Label(), n.Tools)
	}
	fmt.Fprintf(&b, "| **first call as the server sees it** (%s) | | | **%d** |\n", first.Label(), first.Tokens)
	return b.String()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(text string) string { return markdown.Fence("text", text) }
