package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeLenses answers textDocument/codeLens with the snapshot's lenses
// (snapshot.File.Lenses), each a command at the start of its line.
func (s *Server) codeLenses(gctx *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	f, err := s.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	lenses, err := f.Lenses(s.ctxOf(gctx))
	if err != nil || lenses == nil {
		return nil, err
	}
	out := make([]protocol.CodeLens, 0, len(lenses))
	for _, l := range lenses {
		line := protocol.Position{Line: protocol.UInteger(l.Line)}
		out = append(out, protocol.CodeLens{Range: protocol.Range{Start: line, End: line}, Command: command(l.Offer)})
	}
	return out, nil
}
