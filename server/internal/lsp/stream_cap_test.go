package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endlessLine is a reader that yields n bytes of header text with no
// newline, then rest: a peer that never ends its header line. It holds
// nothing, so what the test measures is the reader's memory alone.
type endlessLine struct {
	n    int64
	rest *strings.Reader
}

func (e *endlessLine) Read(p []byte) (int, error) {
	if e.n > 0 {
		k := min(int64(len(p)), e.n)
		for i := range p[:k] {
			p[i] = 'x'
		}
		e.n -= k
		return int(k), nil
	}
	return e.rest.Read(p)
}

// A header line that never ends (here 256 MB without a newline) is
// rejected once it passes the header cap: the peer gets a parse error,
// the next well-formed frame is still read, and the reader's memory stays
// a small constant instead of growing with the line.
func TestOverlongHeaderLineIsRejectedWithBoundedMemory(t *testing.T) {
	const next = `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	in := &endlessLine{n: 256 << 20, rest: strings.NewReader("\r\nContent-Length: " + itoa(len(next)) + "\r\n\r\n" + next)}
	var out bytes.Buffer
	s := newFrameStream(rwc{in, &out}, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var v json.RawMessage
	err := s.ReadObject(&v)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("the session ended: %v", err)
	}
	if string(v) != next {
		t.Errorf("read %q after the long header, want the next frame %q", v, next)
	}
	if !strings.Contains(out.String(), `"code":-32700`) {
		t.Errorf("the peer was not told about the rejected frame: %q", out.String())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("reading past a 256 MB header line allocated %d MB, want a few KB", grew>>20)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

var _ io.Reader = (*endlessLine)(nil)
