package workflow

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Bounds on reading a trace. A trace is a file of history/, which a
// workspace may ship (a clone, an unpacked zip): it is read as a stream,
// one line at a time, and what is kept of it is capped, so its size costs
// time, never memory.
const (
	// maxTraceLine bounds one line of a trace (a call's whole request); a
	// longer one is skipped with a note, and the rest is read.
	maxTraceLine = 16 << 20
	// maxTraceBytes bounds what is read of one trace; a run's own are a
	// few megabytes.
	maxTraceBytes = 1 << 30
	// maxNotes bounds the notes kept about one trace.
	maxNotes = 8
)

// lineReader reads a trace line by line: each line up to maxLine bytes,
// without its newline (a last line cut by a kill included); longer ones
// are read through and skipped, each counted, and reading stops after
// maxBytes.
type lineReader struct {
	r        *bufio.Reader
	maxLine  int
	maxBytes int64
	read     int64
	line     int // number of the line last returned or skipped, from 1
	buf      []byte
	// stopped says reading stopped at maxBytes.
	stopped bool
}

func newLineReader(r io.Reader, maxLine int, maxBytes int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine, maxBytes: maxBytes}
}

// errLongLine reports a line over the cap, which was skipped.
type errLongLine struct {
	line int
	size int64
}

func (e *errLongLine) Error() string {
	return fmt.Sprintf("line %d (%s) is longer than %s and was skipped", e.line, sizeText(e.size), sizeText(maxTraceLine))
}

// next returns the next line. It returns an *errLongLine for a line over
// the cap (the caller goes on), io.EOF at the end (or at the byte
// bound: see stopped), and another error when the file cannot be read.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	var size int64
	long := false
	for {
		if l.read >= l.maxBytes {
			l.stopped = true
			return nil, io.EOF
		}
		chunk, err := l.r.ReadSlice('\n')
		l.read += int64(len(chunk))
		size += int64(len(chunk))
		if !long {
			if len(l.buf)+len(chunk) > l.maxLine+1 { // +1: the newline
				long, l.buf = true, l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			l.line++
			if long {
				return nil, &errLongLine{line: l.line, size: size - 1}
			}
			return bytes.TrimSuffix(l.buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, io.EOF
			}
			l.line++
			if long || size > int64(l.maxLine) {
				return nil, &errLongLine{line: l.line, size: size}
			}
			return l.buf, nil
		default:
			return nil, err
		}
	}
}

// sizeText is a size for people: 812 B, 14 KB, 16 MB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// satAdd adds b (a count a trace claims, at least 0) to a without passing
// the largest int.
func satAdd(a, b int) int {
	if b <= 0 {
		return a
	}
	if a > int(^uint(0)>>1)-b {
		return int(^uint(0) >> 1)
	}
	return a + b
}

// clip cuts s to at most n bytes (at a rune's start), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
