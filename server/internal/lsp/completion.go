package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// completion answers textDocument/completion with what the snapshot
// offers at the cursor (snapshot.File.Complete).
func (s *Server) completion(gctx *glsp.Context, p *protocol.CompletionParams) (any, error) {
	f, err := s.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	c, err := f.Complete(s.ctxOf(gctx), fromPosition(p.Position))
	if err != nil || c == nil {
		return nil, err
	}
	items := completionItems(f.Doc.Mapper(), c.Items)
	if c.List {
		return protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items}, nil
	}
	return items, nil
}
