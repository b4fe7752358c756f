package lsp

import (
	"context"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// tokenLegend names the semantic token types the server sends, in the
// order of their indices: standard LSP types, which every theme colours.
var tokenLegend = protocol.SemanticTokensLegend{
	TokenTypes:     []string{"comment", "namespace", "property", "string", "number", "keyword", "operator"},
	TokenModifiers: []string{},
}

// tokenTypeOf is the legend index of a colour kind (a date reads as a
// number, a boolean as a keyword).
var tokenTypeOf = map[snapshot.ColourKind]protocol.UInteger{
	snapshot.ColourComment:  0,
	snapshot.ColourTable:    1,
	snapshot.ColourKey:      2,
	snapshot.ColourString:   3,
	snapshot.ColourNumber:   4,
	snapshot.ColourDate:     4,
	snapshot.ColourBool:     5,
	snapshot.ColourOperator: 6,
}

// semanticTokensFull answers textDocument/semanticTokens/full with the
// snapshot's colours of the buffer (config.toml's; none for others).
func semanticTokensFull(_ context.Context, e *env, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	f, err := e.file(p.TextDocument.URI)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Release()
	return &protocol.SemanticTokens{Data: encodeTokens(f.Doc.Text, f.Colours())}, nil
}

// encodeTokens writes colours in LSP's relative form (line delta, start
// delta, length, type, modifiers), columns in UTF-16 units. The colours
// come in order, each within one line, so one pass over the text places
// them all.
func encodeTokens(src []byte, cs []snapshot.Colour) []protocol.UInteger {
	data := make([]protocol.UInteger, 0, 5*len(cs))
	at, line, col := 0, 0, 0 // the text is read up to at, which is at line:col
	advance := func(to int) {
		for at < to && at < len(src) {
			if src[at] == '\n' {
				at++
				line, col = line+1, 0
				continue
			}
			r, size := utf8.DecodeRune(src[at:])
			if r >= 0x10000 {
				col += 2
			} else {
				col++
			}
			at += max(size, 1)
		}
	}
	prevLine, prevCol := 0, 0
	for _, c := range cs {
		if c.Range.Start < at || c.Range.End <= c.Range.Start || c.Range.End > len(src) {
			continue // out of order or empty: not placed
		}
		advance(c.Range.Start)
		startLine, startCol := line, col
		advance(c.Range.End)
		if line != startLine {
			continue // a colour never spans lines; one that does is left out
		}
		dl, dc := startLine-prevLine, startCol
		if dl == 0 {
			dc = startCol - prevCol
		}
		data = append(data, protocol.UInteger(dl), protocol.UInteger(dc), protocol.UInteger(col-startCol), tokenTypeOf[c.Kind], 0)
		prevLine, prevCol = startLine, startCol
	}
	return data
}
