package evidence

import (
	"bytes"
	"regexp"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// kindCode is a fenced or indented code block: a passage of a source,
// never a unit of an output (see the package doc).
const kindCode UnitKind = "code"

// block is a piece of a Markdown text that is read on its own: a
// paragraph, a list item, a table row, a block quote or a code block.
type block struct {
	kind       UnitKind
	start, end int
	// headings are the headings above the block, outermost first.
	headings []string
}

// top stands before the text parsed, so that every block of the text,
// even those before its first heading, falls in a level-1 section of
// markdown.Doc; offsets are shifted back by its length.
const top = "#\n"

// blocks splits src into blocks with the project's Markdown parser.
// Headings are not blocks; code blocks are kept only when withCode is
// set. A text the parser refuses (nested too deeply, too large) is split
// at blank lines instead, and the error says why.
func blocks(src []byte, withCode bool) ([]block, error) {
	buf := make([]byte, 0, len(top)+len(src))
	buf = append(append(buf, top...), src...)
	doc := markdown.Parse(buf)
	if doc.Err != nil {
		return plainBlocks(src, 0, len(src), nil), doc.Err
	}
	w := walker{src: buf, withCode: withCode}
	for i, sec := range doc.Sections(1) {
		w.path = w.path[:0]
		if i > 0 {
			w.path = append(w.path, level{1, sec.Heading.Text})
		}
		for _, b := range sec.Blocks {
			w.block(b)
		}
	}
	for i := range w.out {
		w.out[i].start -= len(top)
		w.out[i].end -= len(top)
	}
	return w.out, nil
}

type level struct {
	n    int
	text string
}

// walker collects the blocks of one parsed text.
type walker struct {
	src      []byte
	withCode bool
	path     []level
	out      []block
}

func (w *walker) headings() []string {
	if len(w.path) == 0 {
		return nil
	}
	hs := make([]string, len(w.path))
	for i, l := range w.path {
		hs[i] = l.text
	}
	return hs
}

func (w *walker) add(kind UnitKind, start, end int) {
	for end > start {
		r, size := utf8.DecodeLastRune(w.src[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	for start < end {
		r, size := utf8.DecodeRune(w.src[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	if start >= end || !hasWord(w.src[start:end]) {
		return
	}
	w.out = append(w.out, block{kind: kind, start: start, end: end, headings: w.headings()})
}

func (w *walker) block(b markdown.Block) {
	switch b.Kind {
	case markdown.BlockHeading:
		for len(w.path) > 0 && w.path[len(w.path)-1].n >= b.Heading.Level {
			w.path = w.path[:len(w.path)-1]
		}
		w.path = append(w.path, level{b.Heading.Level, b.Heading.Text})
	case markdown.BlockParagraph:
		w.add(KindParagraph, b.Range.Start, b.Range.End)
	case markdown.BlockList:
		w.list(b)
	case markdown.BlockTable:
		for _, row := range b.Table.Rows {
			w.row(row)
		}
	case markdown.BlockCode:
		if w.withCode {
			w.add(kindCode, b.Code.Content.Start, b.Code.Content.End)
		}
	case markdown.BlockOther:
		// A block quote is prose; an HTML block or a rule is not.
		if t := bytes.TrimLeft(w.src[b.Range.Start:b.Range.End], " \t"); len(t) > 0 && t[0] == '>' {
			w.add(KindQuote, b.Range.Start, b.Range.End)
		}
	}
}

// list adds a list's items. The parser gives each item's first
// paragraph; what else an item holds (nested items, more paragraphs)
// lies between that paragraph and the next item, and is split there.
func (w *walker) list(b markdown.Block) {
	if len(b.Lines) == 0 {
		w.rest(b.Range.Start, b.Range.End)
		return
	}
	if first := lineStart(w.src, b.Lines[0].Range.Start); first > b.Range.Start {
		w.rest(b.Range.Start, first)
	}
	for i, it := range b.Lines {
		w.add(KindItem, it.Range.Start, it.Range.End)
		end := b.Range.End
		if i+1 < len(b.Lines) {
			end = lineStart(w.src, b.Lines[i+1].Range.Start)
		}
		w.rest(it.Range.End, end)
	}
}

// row adds a table row: the whole line from its first cell to its last.
func (w *walker) row(cells []markdown.Line) {
	start, end := -1, -1
	for _, c := range cells {
		if c.Range.End <= c.Range.Start {
			continue
		}
		if start < 0 || c.Range.Start < start {
			start = c.Range.Start
		}
		end = max(end, c.Range.End)
	}
	if start < 0 {
		return
	}
	w.add(KindRow, lineStart(w.src, start), lineEnd(w.src, end))
}

// itemMarker matches a line that opens a list item, and its marker.
var itemMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)`)
})

// rest splits the part of a list item after its first paragraph: a line
// that opens an item starts a nested item, a blank line ends a piece,
// and fenced code is skipped.
func (w *walker) rest(start, end int) {
	if start >= end {
		return
	}
	pieceStart, pieceEnd, kind := -1, -1, KindParagraph
	flush := func() {
		if pieceStart >= 0 {
			w.add(kind, pieceStart, pieceEnd)
		}
		pieceStart = -1
	}
	inFence := false
	for at := start; at < end; {
		lend := min(lineEnd(w.src, at), end)
		line := w.src[at:lend]
		trimmed := bytes.TrimLeft(line, " \t")
		switch {
		case bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~")):
			flush()
			inFence = !inFence
		case inFence:
		case len(bytes.TrimSpace(line)) == 0:
			flush()
		default:
			if m := itemMarker().FindIndex(line); m != nil {
				flush()
				pieceStart, kind = at+m[1], KindItem
			} else if pieceStart < 0 {
				pieceStart, kind = at, KindParagraph
			}
			pieceEnd = lend
		}
		at = lend + 1
	}
	flush()
}

// plainBlocks splits src[start:end] at blank lines, for a text the
// Markdown parser refuses.
func plainBlocks(src []byte, start, end int, headings []string) []block {
	w := walker{src: src}
	from := -1
	for at := start; at <= end; {
		lend := min(lineEnd(src, at), end)
		blank := len(bytes.TrimSpace(src[at:lend])) == 0
		if !blank && from < 0 {
			from = at
		}
		if (blank || lend >= end) && from >= 0 {
			w.add(KindParagraph, from, lend)
			from = -1
		}
		if lend >= end {
			break
		}
		at = lend + 1
	}
	for i := range w.out {
		w.out[i].headings = headings
	}
	return w.out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// hasWord reports whether b holds a letter or a digit.
func hasWord(b []byte) bool {
	found := false
	words(string(b), func(word) { found = true })
	return found
}

func lineStart(src []byte, off int) int {
	off = min(off, len(src))
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset of the newline ending the line at off, or
// the end of src.
func lineEnd(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}
