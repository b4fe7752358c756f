package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// completion answers textDocument/completion with what the snapshot
// offers at the cursor (snapshot.File.Complete).
func completion(ctx context.Context, e *env, p *protocol.CompletionParams) (any, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	c, err := f.Complete(ctx, fromPosition(p.Position))
	if err != nil || c == nil {
		return nil, err
	}
	items := completionItems(f.Doc.Mapper(), c.Items)
	if c.List {
		return protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items}, nil
	}
	return items, nil
}
