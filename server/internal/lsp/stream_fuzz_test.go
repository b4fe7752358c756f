package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"testing"
)

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// FuzzFrameStream feeds arbitrary bytes to the frame reader: it must never
// panic, must stop at the end of input, everything it answers must be
// well-formed frames, and what it allocates is bounded by the input: a
// header that announces a huge body, or a line that never ends, costs no
// more than the bytes that really came.
func FuzzFrameStream(f *testing.F) {
	f.Add([]byte("Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"))
	f.Add([]byte("Content-Length: 5\r\n\r\n{\"a\":"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("garbage\r\n\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("{}Content-Length: 2\n\n[]"))
	f.Add([]byte("Content-Length: 268435456\r\n\r\n{}"))
	f.Add(append(bytes.Repeat([]byte("x"), 3*maxHeaderLine), []byte("\r\nContent-Length: 2\r\n\r\n{}")...))
	f.Add(bytes.Repeat([]byte("Content-Length: 1\r\n"), 200))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		s := newFrameStream(rwc{bytes.NewReader(in), &out}, nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < len(in)+1; i++ {
			var v json.RawMessage
			if err := s.ReadObject(&v); err != nil {
				break
			}
			if !json.Valid(v) {
				t.Fatalf("ReadObject returned invalid JSON %q", v)
			}
		}
		runtime.ReadMemStats(&after)
		// The reader's buffer, plus a few times what came in (the body,
		// its decoding, the error replies).
		if grew, bound := after.TotalAlloc-before.TotalAlloc, uint64(16*len(in)+(1<<20)); grew > bound {
			t.Fatalf("reading %d bytes allocated %d, over %d", len(in), grew, bound)
		}
		// The replies must read back as frames with the strict codec.
		back := newFrameStream(rwc{bytes.NewReader(out.Bytes()), io.Discard}, func(err error) {
			t.Fatalf("an error reply is not a well-formed frame: %v", err)
		})
		for {
			var v json.RawMessage
			if err := back.ReadObject(&v); err != nil {
				if err != io.EOF {
					t.Fatalf("reading the replies back: %v", err)
				}
				break
			}
		}
	})
}

// Reading well-formed frames one after another allocates the same small
// amount for each: nothing accumulates across frames.
func TestFrameReaderAllocationsPerFrame(t *testing.T) {
	const frame = "Content-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}"
	in := &repeatReader{chunk: []byte(frame)}
	s := newFrameStream(rwc{in, io.Discard}, nil)
	var v json.RawMessage
	allocs := testing.AllocsPerRun(1000, func() {
		if err := s.ReadObject(&v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 16 {
		t.Errorf("%.1f allocations per frame, want a few", allocs)
	}
}

// repeatReader yields chunk over and over.
type repeatReader struct {
	chunk []byte
	off   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.chunk[r.off:])
		n += c
		r.off = (r.off + c) % len(r.chunk)
	}
	return n, nil
}
