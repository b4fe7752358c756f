package lsp

import (
	"fmt"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
)

// The handlers here run on the read loop: they hand the editor's change
// to the snapshot set, which updates the documents and asks the workspace
// concerned for a new snapshot, nothing more.

// didOpen handles textDocument/didOpen.
func didOpen(e *env, p *protocol.DidOpenTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	e.set.Opened(path, p.TextDocument.URI, p.TextDocument.Version, []byte(p.TextDocument.Text))
	e.evidenceDiagnostics(p.TextDocument.URI)
	return nil
}

// didChange handles textDocument/didChange: the changes, whole-text or
// ranged, in the mapper's positions.
func didChange(e *env, p *protocol.DidChangeTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	changes := make([]document.Change, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEvent:
			changes = append(changes, document.Change{
				Range: &document.PosRange{Start: fromPosition(c.Range.Start), End: fromPosition(c.Range.End)},
				Text:  c.Text,
			})
		case protocol.TextDocumentContentChangeEventWhole:
			changes = append(changes, document.Change{Text: c.Text})
		default:
			return fault.InvalidRequest(fmt.Sprintf("unknown content change %T", c), "send whole-text or ranged changes, as LSP 3.16 defines them")
		}
	}
	return e.set.Changed(path, p.TextDocument.Version, changes)
}

// didSave handles textDocument/didSave: the saved file may change the
// workspace's state, so its status is sent again when it did.
func didSave(e *env, p *protocol.DidSaveTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	if w := e.set.Saved(path); w != nil {
		e.statusChanged(w)
	}
	e.evidenceDiagnostics(p.TextDocument.URI)
	return nil
}

// didClose handles textDocument/didClose.
func didClose(e *env, p *protocol.DidCloseTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	e.set.Closed(path)
	return nil
}
