package sandbox

import "bytes"

// capWriter keeps at most max bytes and reports past the cap with over,
// without ever failing a write (the writer on the other end must not block).
type capWriter struct {
	buf  *bytes.Buffer
	max  int64
	n    int64
	over func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if room := w.max - int64(w.buf.Len()); room > 0 {
		if int64(len(p)) > room {
			w.buf.Write(p[:room])
		} else {
			w.buf.Write(p)
		}
	}
	if w.n > w.max && w.over != nil {
		w.over()
		w.over = nil
	}
	return len(p), nil
}
