package lsp

import (
	"context"

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

// documentSymbol answers textDocument/documentSymbol: a contract's
// outline (snapshot.File.Outline).
func documentSymbol(_ context.Context, e *env, p *protocol.DocumentSymbolParams) (any, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	root := f.Outline()
	if root == nil {
		return nil, nil
	}
	return []protocol.DocumentSymbol{symbolOf(f.Doc.Mapper(), *root)}, nil
}

func symbolOf(m *document.Mapper, sym snapshot.Symbol) protocol.DocumentSymbol {
	out := protocol.DocumentSymbol{Name: sym.Name, Kind: symbolKinds[sym.Kind], Range: toRange(m, sym.Range), SelectionRange: toRange(m, sym.Selection)}
	for _, c := range sym.Children {
		out.Children = append(out.Children, symbolOf(m, c))
	}
	return out
}

// workspaceSymbol answers workspace/symbol: the stages of every known
// workspace whose name holds the query (snapshot.Set.Stages).
func workspaceSymbol(_ context.Context, e *env, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	var out []protocol.SymbolInformation
	for _, st := range e.set.Stages(p.Query) {
		container := st.Workspace
		out = append(out, protocol.SymbolInformation{Name: st.Name, Kind: protocol.SymbolKindModule, Location: location(st.Location), ContainerName: &container})
	}
	return out, nil
}
