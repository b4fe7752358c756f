package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// definition answers textDocument/definition: the file a contract's path
// leads to (snapshot.File.Definition).
func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	f, err := s.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	loc, err := f.Definition(fromPosition(p.Position))
	if err != nil || loc == nil {
		return nil, err
	}
	return []protocol.Location{location(*loc)}, nil
}

// documentLinks answers textDocument/documentLink: every input, output
// and For each path of a contract, a link (snapshot.File.Links).
func (s *Server) documentLinks(_ *glsp.Context, p *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	f, err := s.file(p.TextDocument.URI)
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
