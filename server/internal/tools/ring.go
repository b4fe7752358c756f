package tools

import (
	"strings"
	"sync"
)

// ring keeps the last size bytes written to it. A server's stderr is copied
// into one without pause, so a server that logs a lot never blocks on a full
// pipe, and its last lines are at hand for error messages.
type ring struct {
	mu    sync.Mutex
	buf   []byte
	start int // index of the oldest byte when full
	full  bool
	total int64
	// grew is closed (and replaced) by every Write, for whoever waits for
	// more output.
	grew chan struct{}
}

func newRing(size int) *ring {
	if size <= 0 {
		size = 64 * 1024
	}
	return &ring{buf: make([]byte, 0, size), grew: make(chan struct{})}
}

// Write keeps the newest bytes; it never fails or blocks for long.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.total += int64(n)
	close(r.grew)
	r.grew = make(chan struct{})
	size := cap(r.buf)
	if len(p) >= size {
		r.buf = append(r.buf[:0], p[len(p)-size:]...)
		r.start, r.full = 0, true
		return n, nil
	}
	if !r.full {
		room := size - len(r.buf)
		if len(p) <= room {
			r.buf = append(r.buf, p...)
			return n, nil
		}
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.full = true
		r.start = 0
	}
	for len(p) > 0 {
		c := copy(r.buf[r.start:], p)
		p = p[c:]
		r.start = (r.start + c) % size
	}
	return n, nil
}

// Grew returns a channel closed by the next Write.
func (r *ring) Grew() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.grew
}

// Bytes returns the kept bytes, oldest first.
func (r *ring) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]byte(nil), r.buf...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// Total is how many bytes were ever written.
func (r *ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Tail returns up to n complete last lines, each cut to maxLine bytes. A
// first line that was partly overwritten is dropped.
func (r *ring) Tail(n, maxLine int) string {
	b := r.Bytes()
	r.mu.Lock()
	cut := r.full
	r.mu.Unlock()
	text := strings.TrimRight(string(b), "\n")
	lines := strings.Split(text, "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:]
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if maxLine > 0 && len(l) > maxLine {
			l = cutRunes(l, maxLine) + "…"
		}
		lines[i] = l
	}
	// The ring may have cut a character at its oldest byte.
	return strings.ToValidUTF8(strings.Join(lines, "\n"), "")
}
