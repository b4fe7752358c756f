package snapshot

import (
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// File is an open document placed in its workspace as the workspace is
// open now: the buffer, the stage whose contract it is (if any) and the
// contract parsed from the buffer, so positions match what the editor
// shows. Getting one never waits for an analysis; the questions that
// need one wait for the snapshot that includes the buffer. It holds the
// workspace's opening: Release it.
type File struct {
	Doc *document.Doc
	// Stage and Contract are set when the file is a stage's contract.
	Stage    *workspace.Stage
	Contract *contract.Contract

	w *Workspace
	o *Opening
}

// File places the open document at path. It is nil, with no error, for a
// document in no workspace; an error says the document is not open or
// its workspace cannot be opened.
func (s *Set) File(path string) (*File, error) {
	d, ok := s.docs.Get(path)
	if !ok {
		return nil, fault.NotFound(fmt.Sprintf("%s is not open in the editor", path), "open the document (textDocument/didOpen) before asking about it")
	}
	w := s.ForPath(d.Path)
	if w == nil {
		return nil, nil
	}
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	ws := o.ws
	f := &File{Doc: d, w: w, o: o}
	if stg := ws.StageOf(d.Path); stg != nil && stg.Contract == d.Path {
		f.Stage = stg
		f.Contract = contract.ParseWith(d.Path, d.Text, contract.Options{Vars: ws.Vars})
	}
	return f, nil
}

// Release lets go of the workspace the file holds (nil-safe).
func (f *File) Release() {
	if f != nil {
		f.o.Release()
	}
}

// ws is the workspace as opened (its Files are the disk's).
func (f *File) ws() *workspace.Workspace { return f.o.ws }

// isConfig reports whether the file is its workspace's config.toml.
func (f *File) isConfig() bool {
	return filepath.Base(f.Doc.Path) == config.FileName && filepath.Dir(f.Doc.Path) == f.ws().Root
}

// offset is the byte offset of a position in the text m maps; a position
// outside the text is an invalid request.
func offset(m *document.Mapper, p document.Position) (int, error) {
	off, err := m.Offset(p)
	if err != nil {
		return 0, fault.InvalidRequest(fmt.Sprintf("position %d:%d: %v", p.Line, p.Character, err), "send a position inside the document as the server has it").Because(err)
	}
	return off, nil
}

// caseFile is an open stage test case placed in its stage: the case
// parsed from the buffer and the stage's contract as the editor has it.
type caseFile struct {
	stage *workspace.Stage
	con   *contract.Contract // nil when the stage has no readable contract
	c     *testcase.Case
}

// asCase places the file as a stage test case; nil for any other file.
func (f *File) asCase() *caseFile {
	ws := f.ws()
	stg, ok := testcase.IsCaseFile(ws, f.Doc.Path)
	if !ok {
		return nil
	}
	cf := &caseFile{stage: stg, c: testcase.Parse(testcase.RefOf(stg, f.Doc.Path), f.Doc.Text)}
	if src, err := ws.Files.ReadFile(stg.Contract); err == nil {
		cf.con = contract.ParseWith(stg.Contract, src, contract.Options{Vars: ws.Vars})
	}
	return cf
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

// targetAt finds what pos points at in the file's contract; ok is false
// when the file is no contract.
func (f *File) targetAt(pos document.Position) (target, bool, error) {
	if f.Contract == nil {
		return target{}, false, nil
	}
	m := f.Doc.Mapper()
	off, err := offset(m, pos)
	if err != nil {
		return target{}, false, err
	}
	return locate(f.Contract, m, off), true, nil
}

// locate finds the element of c at byte offset off. Lines count whole: a
// position anywhere on an input's line is on that input.
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

// Root is the root of the file's workspace.
func (f *File) Root() string { return f.ws().Root }
