package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeLens answers textDocument/codeLens with the snapshot's lenses
// (snapshot.File.Lenses), each a command at the start of its line.
func codeLens(ctx context.Context, e *env, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	lenses, err := f.Lenses(ctx)
	if err != nil || lenses == nil {
		return nil, err
	}
	out := make([]protocol.CodeLens, 0, len(lenses))
	for _, l := range lenses {
		line := protocol.Position{Line: protocol.UInteger(l.Line)}
		out = append(out, protocol.CodeLens{Range: protocol.Range{Start: line, End: line}, Command: commandOf(l.Offer)})
	}
	return out, nil
}
