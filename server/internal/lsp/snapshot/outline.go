package snapshot

import (
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

// SymbolKind is what a symbol of the outline is.
type SymbolKind int

// The kinds of symbol: a stage, a section of its contract, a file it
// names.
const (
	SymbolStage SymbolKind = iota
	SymbolSection
	SymbolFile
)

// Symbol is one entry of a contract's outline: Range is all of it,
// Selection its name, both byte ranges of the buffer.
type Symbol struct {
	Name      string
	Kind      SymbolKind
	Range     document.Range
	Selection document.Range
	Children  []Symbol
}

// Outline is a contract's outline: the stage, its sections, and the
// files its Inputs section names; nil for any other file.
func (f *File) Outline() *Symbol {
	c := f.Contract
	if c == nil {
		return nil
	}
	name := c.Title
	if strings.TrimSpace(name) == "" {
		name = f.Stage.Name
	}
	root := &Symbol{Name: name, Kind: SymbolStage, Range: document.Range{End: len(f.Doc.Text)}, Selection: c.TitleRange}
	for _, sec := range c.Sections {
		sym := Symbol{Name: sec.Name, Kind: SymbolSection, Range: sec.Range, Selection: sec.Heading}
		if strings.TrimSpace(sym.Name) == "" {
			sym.Name = "(untitled section)"
		}
		if sec.Kind == contract.KindInputs {
			for _, in := range c.Inputs {
				label := in.Path
				if label == "" {
					label = in.What
				}
				if strings.TrimSpace(label) == "" {
					continue
				}
				sym.Children = append(sym.Children, Symbol{Name: label, Kind: SymbolFile, Range: in.Range, Selection: in.PathRange})
			}
		}
		root.Children = append(root.Children, sym)
	}
	return root
}

// StageSymbol is a stage of a known workspace, found by name: its
// contract, and the contract's title in Mapper's text (the file's start
// when Mapper is nil: the contract is not open in the editor).
type StageSymbol struct {
	Name, Workspace string
	Location
}

// Stages lists the stages of every known workspace whose name holds
// query (any case; every stage when query is empty).
func (s *Set) Stages(query string) []StageSymbol {
	q := strings.ToLower(query)
	var out []StageSymbol
	for _, w := range s.All() {
		op, err := w.Acquire()
		if err != nil {
			continue
		}
		ws := op.ws
		container := filepath.Base(ws.Root)
		docs := s.docs.Snapshot()
		for _, stg := range ws.Stages {
			if q != "" && !strings.Contains(strings.ToLower(stg.Name), q) {
				continue
			}
			sym := StageSymbol{Name: stg.Name, Workspace: container, Location: Location{Path: stg.Contract}}
			if src, err := docs.ReadFile(stg.Contract); err == nil {
				c := contract.ParseWith(stg.Contract, src, contract.Options{Vars: ws.Vars})
				sym.Mapper, sym.Range = document.NewMapper(src), c.TitleRange
			}
			out = append(out, sym)
		}
		op.Release()
	}
	return out
}
