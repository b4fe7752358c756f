package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// hover answers textDocument/hover: what the snapshot says is under the
// cursor (snapshot.File.Hover), as Markdown.
func hover(ctx context.Context, e *env, p *protocol.HoverParams) (*protocol.Hover, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	h, err := f.Hover(ctx, fromPosition(p.Position))
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
