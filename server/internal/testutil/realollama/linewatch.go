package realollama

import (
	"bytes"
	"io"
	"sync"
)

// lineWatcher copies a process's output to sink and closes seen the first
// time the output contains needle, which is how Launch learns that the
// server listens without polling it.
type lineWatcher struct {
	sink   io.Writer
	needle []byte
	seen   chan struct{}

	mu    sync.Mutex
	carry []byte // the end of earlier output, in case needle spans writes
	found bool
}

func newLineWatcher(sink io.Writer, needle string) *lineWatcher {
	return &lineWatcher{sink: sink, needle: []byte(needle), seen: make(chan struct{})}
}

// Write passes p on and looks for the needle.
func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.found {
		buf := append(w.carry, p...)
		if bytes.Contains(buf, w.needle) {
			w.found = true
			w.carry = nil
			close(w.seen)
		} else {
			keep := min(len(buf), len(w.needle)-1)
			w.carry = append([]byte(nil), buf[len(buf)-keep:]...)
		}
	}
	w.mu.Unlock()
	return w.sink.Write(p)
}
