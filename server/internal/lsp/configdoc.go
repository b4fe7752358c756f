package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/config"
)

// isConfig reports whether dc is its workspace's config.toml.
func isConfig(dc *docContext) bool {
	return filepath.Base(dc.doc.Path) == config.FileName && filepath.Dir(dc.doc.Path) == dc.ws.Root
}

// configActions offers, on a config.toml problem with a suggestion, the
// quick fix that writes it: the model the server has, the key meant, the
// allowed value meant.
func (s *Server) configActions(ctx context.Context, dc *docContext, p *protocol.CodeActionParams) (any, error) {
	found, err := s.findingsIn(ctx, dc, p.Range)
	if err != nil {
		return nil, err
	}
	m := dc.doc.Mapper()
	out := []protocol.CodeAction{}
	quickfix := protocol.CodeActionKindQuickFix
	for _, f := range found {
		sug := f.Data["suggest"]
		if sug == "" {
			continue
		}
		text, title := `"`+sug+`"`, fmt.Sprintf("Use %q", sug)
		if f.Code == config.ProblemUnknownKey {
			text, title = sug, fmt.Sprintf("Change the key to %s", sug)
		}
		yes := true
		out = append(out, protocol.CodeAction{Title: title, Kind: &quickfix, IsPreferred: &yes,
			Diagnostics: []protocol.Diagnostic{toDiagnostic(m, f)},
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				dc.doc.URI: {{Range: toRange(m, f.Range), NewText: text}},
			}}})
	}
	return out, nil
}
