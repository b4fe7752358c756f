package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeAction answers textDocument/codeAction with the snapshot's
// actions on the range (snapshot.File.Actions): its quick fixes, then,
// unless the client asks for other kinds only, the stage's commands.
func codeAction(ctx context.Context, e *env, p *protocol.CodeActionParams) (any, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	acts, err := f.Actions(ctx, fromPosition(p.Range.Start), fromPosition(p.Range.End))
	if err != nil || acts == nil {
		return nil, err
	}
	m := f.Doc.Mapper()
	var out []protocol.CodeAction
	if acts.Fixes != nil {
		out = make([]protocol.CodeAction, 0, len(acts.Fixes))
	}
	quickfix, source := protocol.CodeActionKindQuickFix, protocol.CodeActionKindSource
	for _, fx := range acts.Fixes {
		diag := []protocol.Diagnostic{toDiagnostic(m, fx.Finding)}
		if fx.Create != "" {
			out = append(out, createAction(e.client, f.Root(), fx.Create, diag))
			continue
		}
		a := protocol.CodeAction{Title: fx.Title, Kind: &quickfix, Diagnostics: diag,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				f.Doc.URI: {{Range: toRange(m, fx.Edit.Range), NewText: fx.Edit.Text}},
			}}}
		if fx.Preferred {
			yes := true
			a.IsPreferred = &yes
		}
		out = append(out, a)
	}
	if only := p.Context.Only; len(acts.Commands) == 0 || (len(only) > 0 && !slices.Contains(only, source)) {
		return out, nil
	}
	for _, c := range acts.Commands {
		out = append(out, protocol.CodeAction{Title: c.Title, Kind: &source, Command: commandOf(c)})
	}
	return out, nil
}

// createAction creates a missing file: a workspace edit when the client can
// create files, else the server's icm.createFile command.
func createAction(c *client, root, rel string, diag []protocol.Diagnostic) protocol.CodeAction {
	quickfix := protocol.CodeActionKindQuickFix
	title := fmt.Sprintf("Create %s", rel)
	abs := filepath.Join(root, filepath.FromSlash(rel))
	canCreate := c.supports(func(c protocol.ClientCapabilities) bool {
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
