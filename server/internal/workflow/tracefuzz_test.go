package workflow

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzTraceLines: the line reader returns each line of a trace that fits
// its cap as written and skips each longer one with its number and size,
// whatever the bytes; a summary read from them never panics, and holds
// no more stages, nodes, events and notes than its bounds.
func FuzzTraceLines(f *testing.F) {
	f.Add([]byte(`{"kind":"model","stage":"a","model":{"Call":1,"PromptTokens":5}}` + "\n" + `{"kind":"run-end"}` + "\n"))
	f.Add([]byte("short\n" + "a line well past the cap of the reader\n" + "\n" + "last without newline"))
	f.Add([]byte(`{"kind":"item-end","stage":"b","index":2,"count":3,"message":"kept from x"}` + "\n" + `{"kind":"tool","stage":"b","count":3,"index":2,"tool":{"Args":{"q":1},"IsError":true,"Err":"e"}}`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxLine = 24
		want := bytes.Split(data, []byte("\n"))
		if len(want) > 0 && len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // the newline ends the last line
		}
		lr := newLineReader(bytes.NewReader(data), maxLine, 1<<20)
		for i, w := range want {
			got, err := lr.next()
			var long *errLongLine
			switch {
			case len(w) > maxLine:
				if !errors.As(err, &long) || long.line != i+1 || long.size != int64(len(w)) {
					t.Fatalf("line %d (%d bytes): %v", i+1, len(w), err)
				}
			case err != nil || !bytes.Equal(got, w):
				t.Fatalf("line %d: %q, %v; want %q", i+1, got, err, w)
			}
		}
		if _, err := lr.next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %v", err)
		}
		r := newReader("x", 4)
		r.read(bytes.NewReader(data), maxLine*40, true)
		r.finish()
		if len(r.Stages) > maxRunStages || r.tree.nodes > 4 || len(r.Events) > maxRunEvents || len(r.Notes) > maxNotes+1 || r.Prompt < 0 || r.Output < 0 {
			t.Fatalf("summary past its bounds: %d stages, %d nodes, %d events, %d notes, %d/%d tokens", len(r.Stages), r.tree.nodes, len(r.Events), len(r.Notes), r.Prompt, r.Output)
		}
		if len(r.Tree) > len(r.Stages) {
			t.Fatalf("a tree of %d stages for %d", len(r.Tree), len(r.Stages))
		}
	})
}
