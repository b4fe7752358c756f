package snapshot

import (
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/document"
)

// ColourKind is what a coloured piece of a buffer is.
type ColourKind int

// The kinds of coloured pieces: config.toml's, as config.Highlight sorts
// them.
const (
	ColourComment ColourKind = iota
	ColourTable
	ColourKey
	ColourString
	ColourNumber
	ColourBool
	ColourDate
	ColourOperator
)

// Colour is one piece of the buffer the editor colours: a byte range
// within one line.
type Colour struct {
	Range document.Range
	Kind  ColourKind
}

var colourKinds = map[config.TokenKind]ColourKind{
	config.TokenComment:  ColourComment,
	config.TokenTable:    ColourTable,
	config.TokenKey:      ColourKey,
	config.TokenString:   ColourString,
	config.TokenNumber:   ColourNumber,
	config.TokenBool:     ColourBool,
	config.TokenDate:     ColourDate,
	config.TokenOperator: ColourOperator,
}

// Colours are the coloured pieces of a workspace's config.toml, in order
// and never overlapping, from config.Highlight (no TOML grammar is
// shipped to the editor: its colours are these). nil for every other
// file, whose colours are the editor's own (Markdown).
func (f *File) Colours() []Colour {
	if f.Contract != nil || !f.isConfig() {
		return nil
	}
	toks := config.Highlight(f.Doc.Text)
	out := make([]Colour, 0, len(toks))
	for _, t := range toks {
		out = append(out, Colour{Range: document.Range{Start: t.Start, End: t.End}, Kind: colourKinds[t.Kind]})
	}
	return out
}
