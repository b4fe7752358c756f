package textnorm

import "io"

// Writer normalises a stream as Text normalises a whole text, into an
// underlying writer (a hash, say), holding at most three bytes back. Close
// flushes what it holds; it does not close the underlying writer.
type Writer struct {
	w       io.Writer
	head    []byte // the first bytes, until it is known whether they are a BOM
	started bool
	cr      bool // a CR was held back: dropped if an LF follows
	buf     []byte
}

// NewWriter returns a Writer into w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write normalises p into the underlying writer.
func (n *Writer) Write(p []byte) (int, error) {
	size := len(p)
	if !n.started {
		n.head = append(n.head, p...)
		if len(n.head) < len(BOM) && string(n.head) == BOM[:len(n.head)] {
			return size, nil // maybe the start of a BOM: wait for more
		}
		n.started = true
		p = n.head
		if len(p) >= len(BOM) && string(p[:len(BOM)]) == BOM {
			p = p[len(BOM):]
		}
		n.head = nil
	}
	n.buf = n.buf[:0]
	for _, b := range p {
		if n.cr {
			n.cr = false
			if b != '\n' {
				n.buf = append(n.buf, '\r')
			}
		}
		if b == '\r' {
			n.cr = true
			continue
		}
		n.buf = append(n.buf, b)
	}
	if _, err := n.w.Write(n.buf); err != nil {
		return 0, err
	}
	return size, nil
}

// Close writes out what is held back.
func (n *Writer) Close() error {
	var rest []byte
	if !n.started {
		rest = n.head // too short to be a BOM
		n.started, n.head = true, nil
	}
	if n.cr {
		rest = append(rest, '\r')
		n.cr = false
	}
	if len(rest) == 0 {
		return nil
	}
	_, err := n.w.Write(rest)
	return err
}
