package lsp

import (
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

// documentSymbols outlines a contract: the stage, its sections, and the
// files its Inputs section names.
func (s *Server) documentSymbols(gctx *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	defer dc.Release()
	if err != nil || !ok || dc.c == nil {
		return nil, err
	}
	m := dc.doc.Mapper()
	whole := protocol.Range{End: toPosition(mustPos(m, len(dc.doc.Text)))}
	name := dc.c.Title
	if strings.TrimSpace(name) == "" {
		name = dc.stage.Name
	}
	root := protocol.DocumentSymbol{Name: name, Kind: protocol.SymbolKindModule, Range: whole, SelectionRange: toRange(m, dc.c.TitleRange)}
	for _, sec := range dc.c.Sections {
		sym := protocol.DocumentSymbol{Name: sec.Name, Kind: protocol.SymbolKindNamespace, Range: toRange(m, sec.Range), SelectionRange: toRange(m, sec.Heading)}
		if strings.TrimSpace(sym.Name) == "" {
			sym.Name = "(untitled section)"
		}
		if sec.Kind == contract.KindInputs {
			for _, in := range dc.c.Inputs {
				label := in.Path
				if label == "" {
					label = in.What
				}
				if strings.TrimSpace(label) == "" {
					continue
				}
				sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: label, Kind: protocol.SymbolKindFile, Range: toRange(m, in.Range), SelectionRange: toRange(m, in.PathRange)})
			}
		}
		root.Children = append(root.Children, sym)
	}
	return []protocol.DocumentSymbol{root}, nil
}

func mustPos(m *document.Mapper, off int) document.Position {
	p, err := m.Position(off)
	if err != nil {
		return document.Position{}
	}
	return p
}

// workspaceSymbol lists the stages of every known workspace whose name
// holds the query.
func (s *Server) workspaceSymbol(gctx *glsp.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	q := strings.ToLower(p.Query)
	var out []protocol.SymbolInformation
	for _, st := range s.set.All() {
		op, err := st.Acquire()
		if err != nil {
			continue
		}
		ws := op.Workspace()
		container := filepath.Base(ws.Root)
		snap := s.set.Docs().Snapshot()
		for _, stg := range ws.Stages {
			if q != "" && !strings.Contains(strings.ToLower(stg.Name), q) {
				continue
			}
			loc := protocol.Location{URI: uriOf(stg.Contract)}
			if src, err := snap.ReadFile(stg.Contract); err == nil {
				c := contract.ParseWith(stg.Contract, src, contract.Options{Vars: ws.Vars})
				loc.Range = toRange(document.NewMapper(src), c.TitleRange)
			}
			out = append(out, protocol.SymbolInformation{Name: stg.Name, Kind: protocol.SymbolKindModule, Location: loc, ContainerName: &container})
		}
		op.Release()
	}
	return out, nil
}
