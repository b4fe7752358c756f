// Package termsafe keeps text from files, models and servers from driving
// the terminal it is printed on. Such text may hold escape sequences:
// OSC 8 links that show one address and open another, OSC 52 writes to
// the clipboard, screen clears, a title change, a bell. Everything icm
// prints for a person goes through a Writer, which writes each control
// character as a visible escape (ESC as \x1b, a C1 control as \u009b, a
// bidirectional override or isolate as \u202e, a lone carriage return as
// \r) and keeps newlines, tabs and CRLF line ends.
// Output meant for programs (--json, the language server's and the MCP
// servers' streams, an exported page) is written to the Writer's
// underlying stream instead (Raw), unchanged.
package termsafe

import (
	"io"
	"sync"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendEscaped appends data to out with its control characters escaped.
// With final false, it stops before bytes whose meaning depends on what
// follows (a carriage return, an incomplete UTF-8 sequence) and returns
// how much of data it used.
func appendEscaped(out, data []byte, final bool) ([]byte, int) {
	i := 0
	for i < len(data) {
		c := data[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n', c == '\t', c >= 0x20 && c < 0x7f:
				out = append(out, c)
			case c == '\r':
				if i+1 == len(data) && !final {
					return out, i // a CRLF may be split between writes
				}
				if i+1 < len(data) && data[i+1] == '\n' {
					out = append(out, c)
				} else {
					out = append(out, '\\', 'r')
				}
			default: // C0 controls and DEL
				out = append(out, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(data[i:]) {
			return out, i
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// Not UTF-8: a byte of the C1 range alone is a control to
			// terminals that read bytes; others pass.
			if c <= 0x9f {
				out = append(out, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			} else {
				out = append(out, c)
			}
		case r >= 0x80 && r <= 0x9f, bidi(r):
			out = append(out, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
		default:
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out, i
}

// bidi reports whether r is a bidirectional embedding, override or
// isolate, which reorders the text after it on screen.
func bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// String returns s with its control characters escaped as a Writer
// writes them.
func String(s string) string {
	out, _ := appendEscaped(make([]byte, 0, len(s)), []byte(s), true)
	return string(out)
}

// Writer escapes control characters in what is written through it. It
// holds back at most a few bytes whose meaning depends on the next write
// (Flush writes them). It is safe for concurrent use.
type Writer struct {
	w       io.Writer
	mu      sync.Mutex
	pending []byte
	buf     []byte
}

// NewWriter returns a Writer writing to w; w itself when it is one.
func NewWriter(w io.Writer) *Writer {
	if sw, ok := w.(*Writer); ok {
		return sw
	}
	return &Writer{w: w}
}

// Write escapes p and writes it. It reports all of p written unless the
// underlying writer fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	if len(w.pending) > 0 {
		data = append(w.pending, p...)
	}
	out, used := appendEscaped(w.buf[:0], data, false)
	w.pending = append(w.pending[:0:0], data[used:]...)
	w.buf = out[:0]
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := appendEscaped(nil, w.pending, true)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}

// Raw returns the stream under w when w is a Writer (after writing what
// it held back), else w: where output meant for programs goes.
func Raw(w io.Writer) io.Writer {
	if sw, ok := w.(*Writer); ok {
		_ = sw.Flush()
		return sw.w
	}
	return w
}
