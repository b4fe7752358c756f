package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// caseDoc is an open test case file placed in its stage: the case parsed
// from the buffer and the stage's contract as the editor has it.
type caseDoc struct {
	dc    *docContext
	stage *workspace.Stage
	con   *contract.Contract // nil when the stage has no readable contract
	c     *testcase.Case
}

// caseOf places an open document that is a stage test case; ok is false
// for any other file. The caller must release cd.dc.
func (s *Server) caseOf(uri string) (*caseDoc, bool, error) {
	dc, ok, err := s.contextOf(uri)
	if err != nil || !ok {
		dc.Release()
		return nil, false, err
	}
	stg, ok := testcase.IsCaseFile(dc.ws, dc.doc.Path)
	if !ok {
		dc.Release()
		return nil, false, nil
	}
	cd := &caseDoc{dc: dc, stage: stg, c: testcase.Parse(testcase.RefOf(stg, dc.doc.Path), dc.doc.Text)}
	if src, err := dc.ws.Files.ReadFile(stg.Contract); err == nil {
		cd.con = contract.ParseWith(stg.Contract, src, contract.Options{Vars: dc.ws.Vars})
	}
	return cd, true, nil
}

// caseAt places a position in an open test case file: the case and the
// byte offset. ok is false for any other file; when it is true the caller
// must release cd.dc, even with an error.
func (s *Server) caseAt(p protocol.TextDocumentPositionParams) (cd *caseDoc, off int, ok bool, err error) {
	cd, ok, err = s.caseOf(p.TextDocument.URI)
	if err != nil || !ok {
		return cd, 0, ok, err
	}
	off, err = offsetOf(cd.dc.doc.Mapper(), p.Position)
	return cd, off, true, err
}

// caseCompletion offers, in a case file, the sections, the files the
// stage reads as stand-in targets, the files beside the case, the stage's
// outputs and the expectation forms (as snippets).
func (s *Server) caseCompletion(p *protocol.CompletionParams) ([]protocol.CompletionItem, bool, error) {
	cd, off, ok, err := s.caseAt(p.TextDocumentPositionParams)
	if ok {
		defer cd.dc.Release()
	}
	if err != nil || !ok {
		return nil, ok, err
	}
	m := cd.dc.doc.Mapper()
	items := []protocol.CompletionItem{}
	snippet := protocol.InsertTextFormatSnippet
	for _, sg := range testcase.Complete(cd.dc.ws, cd.stage, cd.con, cd.c, cd.dc.doc.Text, off) {
		it := item(sg.Label, completionKind(sg.Kind), sg.Detail, sg.Insert, toRange(m, document.Range{Start: sg.From, End: off}))
		if sg.Snippet {
			it.InsertTextFormat = &snippet
		}
		if sg.Doc != "" {
			it.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: sg.Doc}
		}
		items = append(items, it)
	}
	return items, true, nil
}

func completionKind(kind string) protocol.CompletionItemKind {
	switch kind {
	case "section":
		return protocol.CompletionItemKindModule
	case "keyword":
		return protocol.CompletionItemKindKeyword
	case "input", "output", "file":
		return protocol.CompletionItemKindFile
	}
	return protocol.CompletionItemKindText
}
