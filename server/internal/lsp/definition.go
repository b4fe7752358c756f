package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// definition jumps from an input, output or For each path to the file
// (to the named heading when the input is section-scoped).
func (s *Server) definition(gctx *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	dc, t, ok, err := s.targetAt(p.TextDocument.URI, p.Position)
	defer dc.Release()
	if err != nil || !ok {
		return nil, err
	}
	var rel string
	var scope *contract.Scope
	switch t.kind {
	case onInput:
		if t.input.NonFile || t.input.Templated || t.input.Path == "" {
			return nil, nil
		}
		rel, scope = t.input.Path, t.input.Scope
	case onOutput:
		if t.output.Templated {
			return nil, nil
		}
		rel = t.output.Path
	case onForEach:
		rel = dc.c.ForEach.Path
	default:
		return nil, nil
	}
	abs, err := dc.ws.Resolve(dc.stage.Dir, rel)
	if t.kind == onInput {
		// An input may be a shared file of the repository above (/_core/...).
		abs, _, err = dc.ws.ResolveInput(dc.stage.Dir, rel)
	}
	if err != nil {
		return nil, nil // the escape is a diagnostic already
	}
	read := s.set.Docs().Snapshot().Over(dc.ws.Disk).ReadFile
	if dc.ws.Shared(abs) {
		read = dc.ws.ReadInput
	}
	src, err := read(abs)
	if err != nil {
		return nil, nil
	}
	var target protocol.Range
	if scope != nil && len(scope.Headings) > 0 {
		doc := markdown.Parse(src)
		if i, ok := doc.FindHeading(scope.Headings[0]); ok {
			target = toRange(document.NewMapper(src), doc.Headings[i].Line)
		}
	}
	return []protocol.Location{{URI: uriOf(abs), Range: target}}, nil
}

// documentLinks makes every input, output and For each path a link.
func (s *Server) documentLinks(gctx *glsp.Context, p *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	defer dc.Release()
	if err != nil || !ok || dc.c == nil {
		return nil, err
	}
	m := dc.doc.Mapper()
	var out []protocol.DocumentLink
	link := func(rel string, r contract.Range, input bool) {
		if r.Len() == 0 {
			return
		}
		abs, err := dc.ws.Resolve(dc.stage.Dir, rel)
		if input {
			abs, _, err = dc.ws.ResolveInput(dc.stage.Dir, rel)
		}
		if err != nil {
			return
		}
		target := uriOf(abs)
		tip := dc.ws.InputRel(abs)
		out = append(out, protocol.DocumentLink{Range: toRange(m, r), Target: &target, Tooltip: &tip})
	}
	for _, in := range dc.c.Inputs {
		if !in.NonFile && !in.Templated && !in.Glob && in.Path != "" {
			link(in.Path, in.PathRange, true)
		}
	}
	for _, o := range dc.c.Outputs {
		if !o.Templated {
			link(o.Path, o.PathRange, false)
		}
	}
	if fe := dc.c.ForEach; fe != nil {
		link(fe.Path, fe.PathRange, false)
	}
	return out, nil
}
