package evidence

import (
	"context"
	"strings"
	"testing"
)

// FuzzUnits holds the unit splitter to what every caller relies on, for
// any bytes: units in order, none overlapping, each a trimmed range of
// the text holding a word; and Compute's units, on a text with CRLF line
// endings or a byte order mark, give the bytes as given.
func FuzzUnits(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzUnits.
	f.Add(unitDoc)
	f.Fuzz(func(t *testing.T, text string) {
		bs, _ := blocks([]byte(text), true)
		prev := 0
		for _, b := range bs {
			if b.start < prev || b.end <= b.start || b.end > len(text) {
				t.Fatalf("block %+v out of order or out of range (previous end %d, text %d bytes)", b, prev, len(text))
			}
			s := text[b.start:b.end]
			if strings.TrimSpace(s) != s || !hasWord([]byte(s)) {
				t.Fatalf("block %q is not a trimmed range holding a word", s)
			}
			prev = b.end
		}
		res := Compute(context.Background(), Input{Text: []byte(text), Sources: []Source{{Kind: SourceInput, Name: "s.md", Text: []byte(text)}}}, Options{})
		for _, u := range res.Units {
			if u.Range.Start < 0 || u.Range.End > len(text) || text[u.Range.Start:u.Range.End] != u.Text || u.Line < 1 || u.EndLine < u.Line {
				t.Fatalf("unit %+v does not place its text in the output", u)
			}
			for _, m := range u.Marks {
				if m.Range.Start < u.Range.Start || m.Range.End > u.Range.End || text[m.Range.Start:m.Range.End] != m.Text {
					t.Fatalf("mark %+v does not place its text in unit %q", m, u.Text)
				}
			}
			for _, p := range u.Support {
				if p.Range.Start < 0 || p.Range.End > len(text) || p.Line < 1 {
					t.Fatalf("passage %+v does not place itself in its source", p)
				}
			}
		}
	})
}
