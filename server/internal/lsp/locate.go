package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// docContext is an open document placed in its workspace: the workspace,
// the stage whose contract it is (if any) and the contract parsed from the
// buffer as it is now, so positions match what the editor shows.
type docContext struct {
	doc   *document.Doc
	st    *snapshot.Workspace
	o     *snapshot.Opening // held by the docContext: release it
	ws    *workspace.Workspace
	stage *workspace.Stage
	c     *contract.Contract
}

// Release lets go of the workspace the document context holds (nil-safe).
func (dc *docContext) Release() {
	if dc != nil {
		dc.o.Release()
	}
}

// contextOf places an open document. ok is false for a document outside
// any workspace; stage and c are nil for a file that is not a stage
// contract. The caller must release the context.
func (s *Server) contextOf(uri string) (*docContext, bool, error) {
	d, err := s.document(uri)
	if err != nil {
		return nil, false, err
	}
	st := s.set.ForPath(d.Path)
	if st == nil {
		return nil, false, nil
	}
	o, err := st.Acquire()
	if err != nil {
		return nil, false, err
	}
	ws := o.Workspace()
	dc := &docContext{doc: d, st: st, o: o, ws: ws}
	if stg := ws.StageOf(d.Path); stg != nil && stg.Contract == d.Path {
		dc.stage = stg
		dc.c = contract.ParseWith(d.Path, d.Text, contract.Options{Vars: ws.Vars})
	}
	return dc, true, nil
}

// targetKind says what a position in a contract is on.
type targetKind int

const (
	onNothing targetKind = iota
	onTitle
	onInput
	onOutput
	onForEach
	onServer
	onTool
)

// target is the contract element under a position.
type target struct {
	kind   targetKind
	rng    document.Range
	input  *contract.Input
	output *contract.Output
	server *contract.ToolServer
	tool   *contract.ToolName
}

// locate finds the element of c at byte offset off. Lines count whole: a
// position anywhere on an input's line is on that input.
// targetAt finds the open contract behind uri and what pos points at in
// it; ok is false when uri is not a contract icm knows. The caller must
// release the context.
func (s *Server) targetAt(uri string, pos protocol.Position) (*docContext, target, bool, error) {
	dc, ok, err := s.contextOf(uri)
	if err != nil || !ok {
		dc.Release()
		return nil, target{}, false, err
	}
	return targetIn(dc, pos)
}

// targetIn is targetAt in a document context already open; it keeps dc
// (the caller releases it) when ok, and releases it otherwise.
func targetIn(dc *docContext, pos protocol.Position) (*docContext, target, bool, error) {
	if dc.c == nil {
		dc.Release()
		return nil, target{}, false, nil
	}
	m := dc.doc.Mapper()
	off, err := offsetOf(m, pos)
	if err != nil {
		dc.Release()
		return nil, target{}, false, err
	}
	return dc, locate(dc.c, m, off), true, nil
}

func locate(c *contract.Contract, m *document.Mapper, off int) target {
	line := func(r document.Range) document.Range {
		p, err := m.Position(r.Start)
		if err != nil {
			return r
		}
		lr, err := m.LineRange(p.Line)
		if err != nil {
			return r
		}
		if r.End > lr.End {
			lr.End = r.End
		}
		return lr
	}
	if c.TitleRange.Len() > 0 && line(c.TitleRange).Contains(off) {
		return target{kind: onTitle, rng: c.TitleRange}
	}
	if c.Tools != nil {
		for i := range c.Tools.Servers {
			ts := &c.Tools.Servers[i]
			for j := range ts.Tools {
				if ts.Tools[j].Range.Contains(off) {
					return target{kind: onTool, rng: ts.Tools[j].Range, server: ts, tool: &ts.Tools[j]}
				}
			}
			if ts.Range.Contains(off) {
				return target{kind: onServer, rng: ts.ServerRange, server: ts}
			}
		}
	}
	for i := range c.Inputs {
		in := &c.Inputs[i]
		if in.Range.Contains(off) || (in.PathRange.Len() > 0 && line(in.PathRange).Contains(off)) {
			return target{kind: onInput, rng: in.PathRange, input: in}
		}
	}
	for i := range c.Outputs {
		o := &c.Outputs[i]
		if o.Range.Contains(off) || (o.PathRange.Len() > 0 && line(o.PathRange).Contains(off)) {
			return target{kind: onOutput, rng: o.PathRange, output: o}
		}
	}
	if fe := c.ForEach; fe != nil && (fe.Range.Contains(off) || line(fe.PathRange).Contains(off)) {
		return target{kind: onForEach, rng: fe.PathRange}
	}
	return target{}
}
