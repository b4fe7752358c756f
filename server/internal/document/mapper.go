// Package document holds what the editor and the command line share about a
// text file: byte ranges and the one mapper between byte offsets and
// positions.
//
// Four representations of a place in a file exist in icm:
//   - a byte offset into the file (what the parsers produce),
//   - a Range of two byte offsets,
//   - an LSP position: 0-based line and a column counted in UTF-16 code
//     units (what editors speak),
//   - a human position: 1-based line and 1-based column counted in
//     characters (what `icm check` prints).
//
// Only Mapper converts between them; nothing else in icm does that
// arithmetic. Offsets inside a multi-byte character, past the end of the
// file, or on a line past the last are errors, never silently zero.
package document

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// Range is a half-open span [Start, End) of byte offsets in a file.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of bytes the range covers.
func (r Range) Len() int { return r.End - r.Start }

// Contains reports whether offset off lies in the range (End inclusive, so
// a cursor right after a word still counts as on it).
func (r Range) Contains(off int) bool { return off >= r.Start && off <= r.End }

// Position is an LSP position: 0-based line, UTF-16 column.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Mapper converts between byte offsets and positions for one version of
// a file's content.
type Mapper struct {
	src        []byte
	lineStarts []int // byte offset of the start of each line
}

// NewMapper indexes src. Lines end at "\n"; a "\r" before it belongs to
// the line's content as editors count it (they treat "\r\n" as one break,
// which only matters at the very end of a line).
func NewMapper(src []byte) *Mapper {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &Mapper{src: src, lineStarts: starts}
}

// LineCount returns the number of lines (a file ending in "\n" has an empty last line).
func (m *Mapper) LineCount() int { return len(m.lineStarts) }

// lineOf returns the 0-based line holding offset off.
func (m *Mapper) lineOf(off int) int {
	return sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > off }) - 1
}

func (m *Mapper) checkOffset(off int) error {
	if off < 0 || off > len(m.src) {
		return fmt.Errorf("offset %d is outside the file (0..%d)", off, len(m.src))
	}
	if off < len(m.src) && !utf8.RuneStart(m.src[off]) {
		return fmt.Errorf("offset %d is inside a multi-byte character", off)
	}
	return nil
}

// lineEnd returns the offset of the end of line's content (before "\r\n" or "\n").
func (m *Mapper) lineEnd(line int) int {
	end := len(m.src)
	if line+1 < len(m.lineStarts) {
		end = m.lineStarts[line+1] - 1
		if end > m.lineStarts[line] && m.src[end-1] == '\r' {
			end--
		}
	}
	return end
}

// Position converts a byte offset to an LSP position.
func (m *Mapper) Position(off int) (Position, error) {
	if err := m.checkOffset(off); err != nil {
		return Position{}, err
	}
	line := m.lineOf(off)
	col := 0
	for i := m.lineStarts[line]; i < off; {
		r, size := utf8.DecodeRune(m.src[i:])
		if r == utf8.RuneError && size <= 1 {
			col++ // an invalid byte counts as one replacement character
			i++
			continue
		}
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return Position{Line: line, Character: col}, nil
}

// Offset converts an LSP position to a byte offset. A column past the end
// of its line is clamped to the line's end, as the LSP specification asks;
// a line past the end of the file is an error.
func (m *Mapper) Offset(p Position) (int, error) {
	if p.Line < 0 || p.Line >= len(m.lineStarts) {
		return 0, fmt.Errorf("line %d is outside the file (0..%d)", p.Line, len(m.lineStarts)-1)
	}
	if p.Character < 0 {
		return 0, fmt.Errorf("column %d is negative", p.Character)
	}
	i, end := m.lineStarts[p.Line], m.lineEnd(p.Line)
	col := 0
	for i < end && col < p.Character {
		r, size := utf8.DecodeRune(m.src[i:])
		if r == utf8.RuneError && size <= 1 {
			size = 1
		}
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if col+w > p.Character {
			break // the position points into the middle of a surrogate pair
		}
		col += w
		i += size
	}
	return i, nil
}

// LineCol converts a byte offset to a human position: 1-based line and
// 1-based column in characters.
func (m *Mapper) LineCol(off int) (line, col int, err error) {
	if err := m.checkOffset(off); err != nil {
		return 0, 0, err
	}
	l := m.lineOf(off)
	n := 0
	for i := m.lineStarts[l]; i < off; {
		_, size := utf8.DecodeRune(m.src[i:])
		if size < 1 {
			size = 1
		}
		i += size
		n++
	}
	return l + 1, n + 1, nil
}

// LineRange returns the byte range of a 0-based line's content.
func (m *Mapper) LineRange(line int) (Range, error) {
	if line < 0 || line >= len(m.lineStarts) {
		return Range{}, fmt.Errorf("line %d is outside the file (0..%d)", line, len(m.lineStarts)-1)
	}
	return Range{Start: m.lineStarts[line], End: m.lineEnd(line)}, nil
}
