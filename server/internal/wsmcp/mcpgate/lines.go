package mcpgate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// Stdio puts the cap of max bytes on each request read from in (one
// JSON-RPC message a line, its line break not counted) and returns the
// input and output to hand an MCP stdio server. A line over max is read
// no further than max, skipped to its end and answered on out with
// TooLarge; the server never sees it and goes on with the next line.
// The output serialises the server's writes with those answers, each
// being one Write of a whole line. tooLarge, when set, is told of each.
func Stdio(in io.Reader, out io.Writer, max int, tooLarge func()) (io.Reader, io.Writer) {
	w := &lockedWriter{w: out}
	return &lineCap{r: bufio.NewReaderSize(in, 64<<10), max: max, out: w, told: tooLarge}, w
}

// lockedWriter makes one Write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineCap reads whole lines of at most max bytes.
type lineCap struct {
	r    *bufio.Reader
	max  int
	out  io.Writer
	told func()
	// line is the line being read or handed on; rest is what of it is
	// still to hand on.
	line, rest []byte
	err        error
}

func (l *lineCap) Read(p []byte) (int, error) {
	for len(l.rest) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.rest, l.err = l.next()
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// next reads the next line within the cap, answering and skipping those
// over it; at the end of the input it returns what is left with the
// reader's error.
func (l *lineCap) next() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		body := len(l.line) + len(chunk)
		if bytes.HasSuffix(chunk, []byte("\n")) {
			body--
		}
		if body > l.max {
			head := l.line
			if len(head) < idWindow {
				head = append(head, chunk[:min(len(chunk), idWindow-len(head))]...)
			}
			if _, werr := l.out.Write(append(TooLarge(head, l.max), '\n')); werr != nil {
				return nil, werr
			}
			if l.told != nil {
				l.told()
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = l.r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			l.line = l.line[:0]
			continue
		}
		if errors.Is(err, bufio.ErrBufferFull) && cap(l.line) < l.max+len(chunk) {
			// A long line: room for the longest at once, rather than
			// growing by steps and leaving each step to the collector.
			l.line = append(make([]byte, 0, l.max+len(chunk)), l.line...)
		}
		l.line = append(l.line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return l.line, err
		}
	}
}
