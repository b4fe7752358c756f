package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// symbolKinds are the protocol's kinds of the outline's symbols.
var symbolKinds = map[snapshot.SymbolKind]protocol.SymbolKind{
	snapshot.SymbolStage:   protocol.SymbolKindModule,
	snapshot.SymbolSection: protocol.SymbolKindNamespace,
	snapshot.SymbolFile:    protocol.SymbolKindFile,
}

// documentSymbols answers textDocument/documentSymbol: a contract's
// outline (snapshot.File.Outline).
func (s *Server) documentSymbols(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	f, err := s.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	root := f.Outline()
	if root == nil {
		return nil, nil
	}
	return []protocol.DocumentSymbol{documentSymbol(f.Doc.Mapper(), *root)}, nil
}

func documentSymbol(m *document.Mapper, sym snapshot.Symbol) protocol.DocumentSymbol {
	out := protocol.DocumentSymbol{Name: sym.Name, Kind: symbolKinds[sym.Kind], Range: toRange(m, sym.Range), SelectionRange: toRange(m, sym.Selection)}
	for _, c := range sym.Children {
		out.Children = append(out.Children, documentSymbol(m, c))
	}
	return out
}

// workspaceSymbol answers workspace/symbol: the stages of every known
// workspace whose name holds the query (snapshot.Set.Stages).
func (s *Server) workspaceSymbol(_ *glsp.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	var out []protocol.SymbolInformation
	for _, st := range s.set.Stages(p.Query) {
		container := st.Workspace
		out = append(out, protocol.SymbolInformation{Name: st.Name, Kind: protocol.SymbolKindModule, Location: location(st.Location), ContainerName: &container})
	}
	return out, nil
}
