package check

import (
	"path"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/state"
)

// HeadingsLacked lists the headings later stages read of the named
// stage's outputs that those outputs lack, reading the outputs as they
// are now (after the stage ran). Outputs not written yet lack nothing.
func (r *Report) HeadingsLacked(stage string) []state.LackedHeading {
	sr := r.Stage(stage)
	if sr == nil || sr.Contract == nil {
		return nil
	}
	ws := r.Workspace
	outputs := map[string]bool{}
	for _, o := range sr.Contract.Outputs {
		outputs[path.Join(sr.Stage.Rel, o.Path)] = true
	}
	var out []state.LackedHeading
	for _, later := range r.Stages[sr.Stage.Index+1:] {
		if later.Contract == nil {
			continue
		}
		var m *document.Mapper
		for _, in := range later.Contract.Inputs {
			sc := in.Scope
			if in.NonFile || sc == nil || sc.FreeText || sc.PathOnly || sc.Table || len(sc.Headings) == 0 {
				continue
			}
			loc, err := assemble.Locate(ws, later.Stage, in)
			if err != nil || !loc.Exists || loc.Dir || !outputs[loc.Rel] {
				continue
			}
			src, err := ws.ReadInput(loc.Abs)
			if err != nil {
				continue
			}
			for _, h := range sc.Headings {
				if _, err := assemble.Select(src, &contract.Scope{Headings: []string{h}}); err == nil {
					continue
				}
				l := state.LackedHeading{Output: loc.Rel, Heading: h, Reader: later.Stage.Name, Contract: ws.Rel(later.Stage.Contract)}
				if later.Source != nil {
					if m == nil {
						m = document.NewMapper(later.Source)
					}
					if line, _, err := m.LineCol(in.PathRange.Start); err == nil {
						l.Line = line
					}
				}
				out = append(out, l)
			}
		}
	}
	return out
}
