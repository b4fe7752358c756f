package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
)

// codeActions offers quick fixes for the findings under the cursor
// (point a path at the nearest existing file, create a missing input) and,
// in a stage contract, the stage commands: run, run all, approve, probe.
func (s *Server) codeActions(gctx *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	ctx := s.ctxOf(gctx)
	dc, ok, err := s.contextOf(p.TextDocument.URI)
	defer dc.Release()
	if err == nil && ok && dc.c == nil && isConfig(dc) {
		return s.configActions(ctx, dc, p)
	}
	if err != nil || !ok || dc.c == nil {
		return nil, err
	}
	found, err := s.findingsIn(ctx, dc, p.Range)
	if err != nil {
		return nil, err
	}
	m := dc.doc.Mapper()
	var out []protocol.CodeAction
	quickfix, source := protocol.CodeActionKindQuickFix, protocol.CodeActionKindSource
	for _, f := range found {
		diag := []protocol.Diagnostic{toDiagnostic(m, f)}
		switch f.Code {
		case contract.CodeInputMissing, contract.CodeForEachSource:
			if sug := f.Data["suggest_relative"]; sug != "" {
				yes := true
				out = append(out, protocol.CodeAction{
					Title: fmt.Sprintf("Change the path to %s", sug), Kind: &quickfix, Diagnostics: diag, IsPreferred: &yes,
					Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
						dc.doc.URI: {{Range: toRange(m, f.Range), NewText: sug}},
					}},
				})
			}
			if rel := f.Data["path"]; rel != "" {
				out = append(out, s.createAction(dc.ws.Root, rel, diag))
			}
		}
	}
	if only := p.Context.Only; len(only) > 0 && !slices.Contains(only, source) {
		return out, nil
	}
	arg := map[string]any{"workspace": dc.ws.Root, "stage": dc.stage.Name}
	for _, c := range []struct{ title, command string }{
		{"Run stage " + dc.stage.Name, cmdRunStage},
		{"Run all stages", cmdRunAll},
		{"Approve stage " + dc.stage.Name, cmdApprove},
		{"Probe stage " + dc.stage.Name + " (show the assembled context)", cmdProbe},
	} {
		out = append(out, protocol.CodeAction{Title: c.title, Kind: &source, Command: &protocol.Command{Title: c.title, Command: c.command, Arguments: []any{arg}}})
	}
	return out, nil
}

// createAction creates a missing file: a workspace edit when the client can
// create files, else the server's icm.createFile command.
func (s *Server) createAction(root, rel string, diag []protocol.Diagnostic) protocol.CodeAction {
	quickfix := protocol.CodeActionKindQuickFix
	title := fmt.Sprintf("Create %s", rel)
	abs := filepath.Join(root, filepath.FromSlash(rel))
	canCreate := s.clientSupports(func(c protocol.ClientCapabilities) bool {
		if c.Workspace == nil || c.Workspace.WorkspaceEdit == nil {
			return false
		}
		return slices.Contains(c.Workspace.WorkspaceEdit.ResourceOperations, protocol.ResourceOperationKindCreate)
	})
	if canCreate {
		no := false
		return protocol.CodeAction{Title: title, Kind: &quickfix, Diagnostics: diag,
			Edit: &protocol.WorkspaceEdit{DocumentChanges: []any{protocol.CreateFile{Kind: "create", URI: uriOf(abs), Options: &protocol.CreateFileOptions{IgnoreIfExists: &no}}}}}
	}
	return protocol.CodeAction{Title: title, Kind: &quickfix, Diagnostics: diag,
		Command: &protocol.Command{Title: title, Command: cmdCreateFile, Arguments: []any{map[string]any{"workspace": root, "path": rel}}}}
}

// findingsIn returns the current analysis's findings in the document that
// lie within rng: what a quick fix can act on.
func (s *Server) findingsIn(ctx context.Context, dc *docContext, rng protocol.Range) ([]contract.Finding, error) {
	m := dc.doc.Mapper()
	start, err := offsetOf(m, rng.Start)
	if err != nil {
		return nil, err
	}
	end, err := offsetOf(m, rng.End)
	if err != nil {
		return nil, err
	}
	a, err := dc.st.Snapshot(ctx)
	defer a.Release()
	if err != nil {
		return nil, err
	}
	return a.FindingsAt(dc.doc.Path, start, end), nil
}
