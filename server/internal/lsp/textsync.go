package lsp

import (
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// The handlers here run on the read loop: they update the document store
// and ask the workspace concerned for a new analysis, nothing more.

func (s *Server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	s.set.Docs().Open(path, p.TextDocument.URI, p.TextDocument.Version, []byte(p.TextDocument.Text))
	if st := s.set.ForPath(path); st != nil {
		st.Touch(isContract(path) && !st.KnowsContract(path))
	}
	return nil
}

func (s *Server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
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
	if _, err := s.set.Docs().Apply(path, p.TextDocument.Version, changes); err != nil {
		return err
	}
	if st := s.set.ForPath(path); st != nil {
		st.Touch(false)
	}
	return nil
}

func (s *Server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	if st := s.set.ForPath(path); st != nil {
		st.Touch(false)
		s.statusMayHaveChanged(st)
	}
	return nil
}

func (s *Server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return err
	}
	s.set.Docs().Close(path)
	if st := s.set.ForPath(path); st != nil {
		st.Touch(false)
	}
	return nil
}

// file places the open document a URI names in its workspace; nil,
// with no error, for a document in none. The caller releases it.
func (s *Server) file(uri string) (*snapshot.File, error) {
	path, err := pathOf(uri)
	if err != nil {
		return nil, err
	}
	return s.set.File(path)
}
