// Package textnorm normalises the text icm reads from a workspace before
// anything parses it, assembles it or hashes it: a UTF-8 byte order mark
// at the start is dropped and every CRLF line ending becomes LF. Editors
// on some systems save that way; the model should not see either, and a
// file converted between the two forms says the same thing, so it hashes
// the same. A lone CR (not before LF) is kept: it is not a line ending
// any current editor writes, and changing it could change meaning.
package textnorm

import "bytes"

// BOM is the UTF-8 byte order mark.
const BOM = "\ufeff"

// Text returns data normalised. When there is nothing to change it
// returns data itself, without copying.
func Text(data []byte) []byte {
	out, _ := Map(data)
	return out
}

// Offsets maps offsets in normalised text back to the original bytes.
type Offsets struct {
	// bom is the length of the byte order mark dropped (0 or 3).
	bom int
	// removed lists, in order, the offsets in the normalised text at which
	// a CR was dropped (just before the LF now at that offset).
	removed []int
}

// Map returns data normalised and how to map offsets back; the Offsets
// are nil when data needed no change.
func Map(data []byte) ([]byte, *Offsets) {
	hasBOM := bytes.HasPrefix(data, []byte(BOM))
	if !hasBOM && !bytes.Contains(data, []byte("\r\n")) {
		return data, nil
	}
	m := &Offsets{}
	src := data
	if hasBOM {
		m.bom = len(BOM)
		src = data[len(BOM):]
	}
	out := make([]byte, 0, len(src))
	for {
		i := bytes.Index(src, []byte("\r\n"))
		if i < 0 {
			out = append(out, src...)
			break
		}
		out = append(out, src[:i]...)
		m.removed = append(m.removed, len(out))
		out = append(out, '\n')
		src = src[i+2:]
	}
	return out, m
}

// Original returns the offset in the original bytes of offset off in the
// normalised text. A nil Offsets maps every offset to itself.
func (m *Offsets) Original(off int) int {
	if m == nil {
		return off
	}
	// Every CR dropped at or before off's position shifts it by one: an
	// offset at an LF that lost its CR maps to the CR, so a range ending
	// at a line's end still ends before the line ending.
	lo, hi := 0, len(m.removed)
	for lo < hi {
		mid := (lo + hi) / 2
		if m.removed[mid] < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return off + m.bom + lo
}
