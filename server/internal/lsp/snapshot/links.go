package snapshot

import (
	"context"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// Location is a place in a file: Range of its text as Mapper maps it;
// the file's start when Mapper is nil.
type Location struct {
	Path   string
	Mapper *document.Mapper
	Range  document.Range
	// Tool, when set, is the place: a tool call's read-only document
	// (what the model was given back), not Path.
	Tool *ToolRef
}

// Link is a path in the buffer (Range) that leads to a file.
type Link struct {
	Range   document.Range
	Path    string
	Tooltip string
}

// Definition is where an input, output or For each path under pos
// leads: the file (read as the editor has it), at the named heading when
// the input is section-scoped. nil when pos is on no path, or on one that
// leads nowhere (an escape or a missing file has a diagnostic already).
func (f *File) Definition(ctx context.Context, pos document.Position) (*Location, error) {
	if f.Contract == nil {
		return f.evidenceDefinition(ctx, pos), nil
	}
	t, ok, err := f.targetAt(pos)
	if err != nil || !ok {
		return nil, err
	}
	var rel string
	var scope *contract.Scope
	switch t.kind {
	case onInput:
		if t.input.NonFile || t.input.Templated || t.input.Path == "" {
			return nil, nil
		}
		rel, scope = t.input.Path, t.input.Scope
	case onOutput:
		if t.output.Templated {
			return nil, nil
		}
		rel = t.output.Path
	case onForEach:
		rel = f.Contract.ForEach.Path
	default:
		return nil, nil
	}
	ws := f.ws()
	abs, err := ws.Resolve(f.Stage.Dir, rel)
	if t.kind == onInput {
		// An input may be a shared file of the repository above (/_core/...).
		abs, _, err = ws.ResolveInput(f.Stage.Dir, rel)
	}
	if err != nil {
		return nil, nil
	}
	read := f.w.set.docs.Snapshot().Over(ws.Disk).ReadFile
	if ws.Shared(abs) {
		read = ws.ReadInput
	}
	src, err := read(abs)
	if err != nil {
		return nil, nil
	}
	loc := &Location{Path: abs}
	if scope != nil && len(scope.Headings) > 0 {
		doc := markdown.Parse(src)
		if i, ok := doc.FindHeading(scope.Headings[0]); ok {
			loc.Mapper, loc.Range = document.NewMapper(src), doc.Headings[i].Line
		}
	}
	return loc, nil
}

// Links makes every input, output and For each path of a contract a
// link to its file; nil for any other file.
func (f *File) Links() []Link {
	if f.Contract == nil {
		return nil
	}
	ws := f.ws()
	var out []Link
	link := func(rel string, r document.Range, input bool) {
		if r.Len() == 0 {
			return
		}
		abs, err := ws.Resolve(f.Stage.Dir, rel)
		if input {
			abs, _, err = ws.ResolveInput(f.Stage.Dir, rel)
		}
		if err != nil {
			return
		}
		out = append(out, Link{Range: r, Path: abs, Tooltip: ws.InputRel(abs)})
	}
	for _, in := range f.Contract.Inputs {
		if !in.NonFile && !in.Templated && !in.Glob && in.Path != "" {
			link(in.Path, in.PathRange, true)
		}
	}
	for _, o := range f.Contract.Outputs {
		if !o.Templated {
			link(o.Path, o.PathRange, false)
		}
	}
	if fe := f.Contract.ForEach; fe != nil {
		link(fe.Path, fe.PathRange, false)
	}
	return out
}
