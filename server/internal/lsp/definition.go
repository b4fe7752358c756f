package lsp

import (
	"context"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// definition answers textDocument/definition: the file a contract's path
// leads to (snapshot.File.Definition).
func definition(ctx context.Context, e *env, p *protocol.DefinitionParams) (any, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	loc, err := f.Definition(ctx, fromPosition(p.Position))
	if err != nil || loc == nil {
		return nil, err
	}
	if t := loc.Tool; t != nil {
		// A page the model read: the read-only document of what it saw.
		return []protocol.Location{{URI: toolURI(t.Root, t.RunID, t.Stage, t.Index, t.Call)}}, nil
	}
	return []protocol.Location{location(*loc)}, nil
}

// documentLink answers textDocument/documentLink: every input, output
// and For each path of a contract, a link (snapshot.File.Links).
func documentLink(_ context.Context, e *env, p *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	links := f.Links()
	if links == nil {
		return nil, nil
	}
	m := f.Doc.Mapper()
	out := make([]protocol.DocumentLink, 0, len(links))
	for _, l := range links {
		target, tip := uriOf(l.Path), l.Tooltip
		out = append(out, protocol.DocumentLink{Range: toRange(m, l.Range), Target: &target, Tooltip: &tip})
	}
	return out, nil
}
