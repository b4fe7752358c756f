package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// FuzzFrameStream feeds arbitrary bytes to the frame reader: it must never
// panic, must stop at the end of input, and everything it answers must be
// well-formed frames.
func FuzzFrameStream(f *testing.F) {
	f.Add([]byte("Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"))
	f.Add([]byte("Content-Length: 5\r\n\r\n{\"a\":"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("garbage\r\n\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("{}Content-Length: 2\n\n[]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		s := newFrameStream(rwc{bytes.NewReader(in), &out}, nil)
		for i := 0; i < len(in)+1; i++ {
			var v json.RawMessage
			if err := s.ReadObject(&v); err != nil {
				break
			}
			if !json.Valid(v) {
				t.Fatalf("ReadObject returned invalid JSON %q", v)
			}
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
