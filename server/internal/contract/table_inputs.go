package contract

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// tableInputs reads an Inputs table. Which column holds the path is found
// by the shape of its cells, so headers in any language work. A cell that
// names several paths gives one input for each.
func (p *parser) tableInputs(t *markdown.Table) {
	cols := findInputColumns(t)
	if cols.path < 0 {
		// No column holds anything path-shaped and no header names a
		// file: every row names something other than a file.
		p.add(rowRange(t.Header), Info, CodeNonFileInput,
			"no column of this Inputs table holds file paths; its rows are shown as inputs that are not files")
	}
	for _, row := range t.Rows {
		cell := func(i int) markdown.Line {
			if i < 0 || i >= len(row) {
				return markdown.Line{}
			}
			return row[i]
		}
		in := Input{Notation: "table", Range: rowRange(row), Source: cleanCell(cell(cols.source).Text), Why: cleanCell(cell(cols.why).Text)}
		if in.Range.Len() == 0 || excludedRow(row) {
			continue
		}
		var texts []string
		for i, c := range row {
			if i != cols.path {
				texts = append(texts, c.Text)
			}
		}
		in.Optional = optional(strings.Join(texts, " | "))
		layerGiven := cols.layer >= 0 && strings.TrimSpace(cell(cols.layer).Text) != ""
		if layerGiven {
			in.Layer = p.tableLayer(cell(cols.layer))
		}
		pc := cell(cols.path)
		var toks []cellTok
		if cols.path >= 0 {
			toks = cellPaths(pc.Text)
		}
		if len(toks) == 0 {
			what := strings.TrimSpace(pc.Text)
			r := pc.Sub(strings.Index(pc.Text, what), len(what))
			if what == "" {
				// The row names nothing where the path goes: say what it
				// is about with its first non-empty cell.
				what, r = cleanCell(row[0].Text), in.Range
				for _, c := range row {
					if strings.TrimSpace(c.Text) != "" {
						what, r = cleanCell(c.Text), c.Range
						break
					}
				}
			}
			p.nonFileInput(&in, r, what)
			p.c.Inputs = append(p.c.Inputs, in)
			continue
		}
		for _, tok := range toks {
			one := in
			p.setPath(&one, pc, tok.at, tok.path)
			one.Embedded = tok.embedded
			if !layerGiven || one.Layer == 0 {
				// No layer, or one icm cannot use (a finding says so):
				// where the file lives says.
				one.Layer = LocationLayer(one.Path)
				one.LayerInferred = true
			}
			if cols.scope >= 0 {
				if s := p.scope(cell(cols.scope)); s != nil {
					one.Scope = s
				}
			}
			if one.Scope == nil && tok.scope != "" && (cols.scope < 0 || strings.TrimSpace(cell(cols.scope).Text) == "") {
				one.Scope = p.scope(markdown.Line{Text: tok.scope, Range: pc.Sub(tok.scopeAt, len(tok.scope))})
			}
			p.addInput(one)
		}
	}
}

// optionalPhrases mark an input that may be missing without harm.
var optionalPhrases = splitPhrases(
	"if exists", "if it exists", "if any", "if present", "if available", "when present", "optional",
	"se existir", "se houver", "caso exista", "opcional", "si existe", "si hay",
	"facultatif", "optionnel", "s il existe", "falls vorhanden", "wenn vorhanden",
)

// optional reports whether text says its input may be missing.
func optional(text string) bool {
	return hasPhrase(words(text), optionalPhrases)
}
