package markdown

import (
	"bytes"
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Limits of what Parse hands to goldmark. Its block parser checks every
// open container on every line, so its time grows with size times
// nesting depth: a 4 MB list nested 2,000 levels takes a minute. Anything
// past these limits is refused before parsing, in time linear in its
// size, with a LimitError.
const (
	// MaxNesting is the deepest nesting of lists and block quotes parsed.
	// Prose nests a handful of levels; 64 is far beyond any.
	MaxNesting = 64
	// MaxParseBytes is the largest document parsed.
	MaxParseBytes = 2 << 20
)

// LimitError says a document is nested too deeply or is too large for icm
// to parse; nothing of it was parsed.
type LimitError struct {
	// Line is the 1-based line of the deepest nesting (0 for size).
	Line int
	// Depth is the nesting found there.
	Depth int
	// Size is the document's size, when that is what is over.
	Size int
}

func (e *LimitError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("the Markdown is too large to parse (%d bytes; icm parses up to %d)", e.Size, MaxParseBytes)
	}
	return fmt.Sprintf("the Markdown is nested %d levels deep at line %d (lists or quotes inside each other); icm parses up to %d levels: flatten it", e.Depth, e.Line, MaxNesting)
}

// Fault says what to do: the document is the workspace's, not icm's.
func (e *LimitError) Fault() *fault.Error {
	if e.Size > 0 {
		return fault.Failed(e.Error(), "split the document into smaller files", nil)
	}
	return fault.Failed(e.Error(), "flatten the lists or quotes nested inside each other", nil)
}

// Check reports whether src is within the limits Parse applies.
func Check(src []byte) error {
	if len(src) > MaxParseBytes {
		return &LimitError{Size: len(src)}
	}
	if depth, line := nesting(src); depth > MaxNesting {
		return &LimitError{Line: line, Depth: depth}
	}
	return nil
}

// nesting estimates, in one pass, the deepest container nesting of src
// and its line: the list markers and quote markers that open a line, plus
// one level per two columns of indentation (how nested list items are
// written). It may count a level too many, never too few, so nothing
// nested past the limit reaches goldmark.
func nesting(src []byte) (depth, line int) {
	for n := 1; len(src) > 0; n++ {
		end := bytes.IndexByte(src, '\n')
		if end < 0 {
			end = len(src)
		}
		if d := lineDepth(src[:end]); d > depth {
			depth, line = d, n
		}
		if end == len(src) {
			break
		}
		src = src[end+1:]
	}
	return depth, line
}

// lineDepth counts the containers one line opens or sits in.
func lineDepth(l []byte) int {
	markers, cols := 0, 0
	onlyRule := true // the line so far could be a thematic break (- - -)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == ' ':
			cols++
		case c == '\t':
			cols += 4 - cols%4
		case c == '\r':
		case c == '>':
			markers++
			onlyRule = false
		case (c == '-' || c == '*' || c == '+') && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t'):
			markers++
			onlyRule = onlyRule && c != '+'
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && j-i < 9 && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j < len(l) && (l[j] == '.' || l[j] == ')') && (j+1 == len(l) || l[j+1] == ' ' || l[j+1] == '\t') {
				markers++
				onlyRule = false
				i = j
				continue
			}
			return markers + cols/2
		default:
			return markers + cols/2
		}
	}
	if onlyRule {
		return 0 // "- - - -" is a horizontal rule, not lists in lists
	}
	return markers + cols/2
}
