// Package markdown parses Markdown with goldmark and returns the parts icm
// reads (headings, sections, list items, paragraph lines, table cells, code
// blocks), each with its byte range in the source, so that findings can
// point at a line and column. It knows nothing about contracts.
package markdown

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/icm-tool/icm/server/internal/document"
)

// Heading is one ATX or setext heading.
type Heading struct {
	Level int
	// Text is the heading's text, without the #'s.
	Text string
	// Line is the whole heading line (the first line for setext headings).
	Line document.Range
	// TextRange covers Text.
	TextRange document.Range
}

// Section is a heading and everything after it up to the next heading of
// the same or a higher level.
type Section struct {
	Heading Heading
	// Range runs from the start of the heading line to the start of the next
	// heading at the same or a higher level (or the end of the file).
	Range document.Range
	// Body is Range without the heading line(s).
	Body document.Range
	// Blocks are the top-level blocks of the body, in order, including those
	// under deeper sub-headings.
	Blocks []Block
}

// BlockKind says what a Block holds.
type BlockKind int

// Kinds of blocks.
const (
	BlockParagraph BlockKind = iota
	BlockList
	BlockTable
	BlockCode
	BlockHeading
	BlockOther
)

// Block is one top-level block of a section body.
type Block struct {
	Kind  BlockKind
	Range document.Range
	// Lines holds a paragraph's lines, or a list's items (one entry per item,
	// covering the item's first paragraph, continuation lines joined).
	Lines []Line
	Table *Table
	Code  *Code
	// Heading is set for BlockHeading (a sub-heading inside a section).
	Heading *Heading
}

// Line is a piece of source text and its range. A list item that spans
// several physical lines has them joined by single spaces in Text; parts
// remembers where each came from so Sub can map back.
type Line struct {
	Text  string
	Range document.Range
	parts []document.Range
}

// Sub returns the source range of Text[i:i+n]. Offsets that fall on the
// space joining two physical lines map to the end of the first.
func (l Line) Sub(i, n int) document.Range {
	return document.Range{Start: l.offset(i), End: l.offset(i + n)}
}

func (l Line) offset(i int) int {
	if len(l.parts) == 0 {
		return l.Range.Start + i
	}
	for _, p := range l.parts {
		if i <= p.Len() {
			return p.Start + i
		}
		i -= p.Len() + 1
	}
	return l.Range.End
}

// Table is a GitHub-style table.
type Table struct {
	Header []Line
	Rows   [][]Line
}

// Code is a fenced or indented code block.
type Code struct {
	// Info is the fence's info string ("sh", "python no-run").
	Info string
	// Text is the block's content.
	Text string
	// Content covers Text.
	Content document.Range
}

// Doc is a parsed document.
type Doc struct {
	Src []byte
	// Err is set, and the document left empty, when src is past the
	// limits of what icm parses (see Check).
	Err error
	// Headings lists every top-level heading in order.
	Headings []Heading
	// blocks are the document's top-level blocks in order.
	blocks []Block
}

// newParser returns the goldmark parser with GitHub tables. It is built
// once: goldmark parsers hold only configuration and are safe to share.
var newParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()
})

// Parse parses src. It never fails: any byte sequence is some Markdown;
// one nested too deeply or too large to parse gives an empty Doc whose Err
// says why.
func Parse(src []byte) *Doc {
	if err := Check(src); err != nil {
		return &Doc{Src: src, Err: err}
	}
	root := newParser().Parse(text.NewReader(src))
	d := &Doc{Src: src}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		b := d.block(n)
		if b.Kind == BlockHeading {
			d.Headings = append(d.Headings, *b.Heading)
		}
		d.blocks = append(d.blocks, b)
	}
	return d
}

// Sections returns the sections whose heading has exactly the given level.
// A section ends at the next heading of the same or a higher level.
func (d *Doc) Sections(level int) []Section {
	var out []Section
	var cur *Section
	end := func(at int) {
		if cur != nil {
			cur.Range.End = at
			cur.Body.End = at
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, b := range d.blocks {
		if b.Kind == BlockHeading && b.Heading.Level <= level {
			end(b.Heading.Line.Start)
			if b.Heading.Level == level {
				h := *b.Heading
				bodyStart := nextLineStart(d.Src, b.Range.End)
				cur = &Section{Heading: h, Range: document.Range{Start: h.Line.Start}, Body: document.Range{Start: bodyStart}}
			}
			continue
		}
		if cur != nil {
			cur.Blocks = append(cur.Blocks, b)
		}
	}
	end(len(d.Src))
	return out
}

// Title returns the first level-1 heading, if any.
func (d *Doc) Title() (Heading, bool) {
	for _, h := range d.Headings {
		if h.Level == 1 {
			return h, true
		}
	}
	return Heading{}, false
}

// Blocks returns every top-level block of the document, in order.
func (d *Doc) Blocks() []Block { return d.blocks }

// BlocksBefore returns the top-level blocks that come before the first
// heading of the given level or higher, after the first level-1 heading:
// the summary under a title.
func (d *Doc) BlocksBefore(level int) []Block {
	var out []Block
	seenTitle := false
	for _, b := range d.blocks {
		if b.Kind == BlockHeading {
			if b.Heading.Level == 1 && !seenTitle {
				seenTitle = true
				continue
			}
			if b.Heading.Level <= level {
				break
			}
		}
		out = append(out, b)
	}
	return out
}

func (d *Doc) block(n ast.Node) Block {
	src := d.Src
	switch n := n.(type) {
	case *ast.Heading:
		h := heading(src, n)
		return Block{Kind: BlockHeading, Range: h.Line, Heading: &h}
	case *ast.Paragraph, *ast.TextBlock:
		lines := segmentLines(src, n.Lines())
		return Block{Kind: BlockParagraph, Range: span(lines), Lines: lines}
	case *ast.List:
		var items []Line
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			if first := it.FirstChild(); first != nil && first.Type() == ast.TypeBlock {
				ls := segmentLines(src, first.Lines())
				if len(ls) == 0 {
					continue
				}
				items = append(items, joinLines(src, ls))
			}
		}
		return Block{Kind: BlockList, Range: nodeRange(src, n), Lines: items}
	case *extast.Table:
		t := &Table{}
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []Line
			for c := row.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, cell(src, c))
			}
			if _, ok := row.(*extast.TableHeader); ok {
				t.Header = cells
			} else {
				t.Rows = append(t.Rows, cells)
			}
		}
		return Block{Kind: BlockTable, Range: nodeRange(src, n), Table: t}
	case *ast.FencedCodeBlock:
		c := &Code{Text: string(linesValue(src, n.Lines()))}
		if n.Info != nil {
			seg := n.Info.Segment
			c.Info = string(bytes.TrimSpace(seg.Value(src)))
		}
		c.Content = linesRange(n.Lines())
		return Block{Kind: BlockCode, Range: nodeRange(src, n), Code: c}
	case *ast.CodeBlock:
		c := &Code{Text: string(linesValue(src, n.Lines())), Content: linesRange(n.Lines())}
		return Block{Kind: BlockCode, Range: c.Content, Code: c}
	default:
		return Block{Kind: BlockOther, Range: nodeRange(src, n)}
	}
}

func heading(src []byte, n *ast.Heading) Heading {
	h := Heading{Level: n.Level}
	lines := n.Lines()
	if lines.Len() > 0 {
		r := linesRange(lines)
		h.TextRange = r
		h.Text = string(bytes.TrimSpace(src[r.Start:r.End]))
		h.Line = document.Range{Start: lineStart(src, r.Start), End: lineEndAt(src, r.End)}
		return h
	}
	// An empty heading ("##"): its position is the node's own.
	p := n.Pos()
	if p < 0 {
		p = 0
	}
	h.Line = document.Range{Start: lineStart(src, p), End: lineEndAt(src, p)}
	h.TextRange = document.Range{Start: h.Line.End, End: h.Line.End}
	return h
}

func cell(src []byte, c ast.Node) Line {
	lines := c.Lines()
	if lines.Len() == 0 {
		p := c.Pos()
		if p < 0 {
			p = 0
		}
		return Line{Range: document.Range{Start: p, End: p}}
	}
	r := linesRange(lines)
	if r.End < r.Start {
		r.End = r.Start // an all-blank cell trims to nothing
	}
	return Line{Text: string(src[r.Start:r.End]), Range: r}
}

func segmentLines(src []byte, segs *text.Segments) []Line {
	out := make([]Line, 0, segs.Len())
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		v := bytes.TrimRight(s.Value(src), "\r\n")
		out = append(out, Line{Text: string(v), Range: document.Range{Start: s.Start, End: s.Start + len(v)}})
	}
	return out
}

func joinLines(src []byte, ls []Line) Line {
	if len(ls) == 1 {
		return ls[0]
	}
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l.Text)
	}
	parts := make([]document.Range, len(ls))
	for i, l := range ls {
		parts[i] = l.Range
	}
	return Line{Text: b.String(), Range: document.Range{Start: ls[0].Range.Start, End: ls[len(ls)-1].Range.End}, parts: parts}
}

func span(ls []Line) document.Range {
	if len(ls) == 0 {
		return document.Range{}
	}
	return document.Range{Start: ls[0].Range.Start, End: ls[len(ls)-1].Range.End}
}

func linesRange(segs *text.Segments) document.Range {
	if segs.Len() == 0 {
		return document.Range{}
	}
	return document.Range{Start: segs.At(0).Start, End: segs.At(segs.Len() - 1).Stop}
}

func linesValue(src []byte, segs *text.Segments) []byte {
	var b bytes.Buffer
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(src))
	}
	return b.Bytes()
}

// nodeRange finds the byte range a block node covers from its own lines or,
// for containers, from its descendants' lines.
func nodeRange(src []byte, n ast.Node) document.Range {
	r := document.Range{Start: -1, End: -1}
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		if ls := c.Lines(); ls != nil && ls.Len() > 0 {
			lr := linesRange(ls)
			if r.Start < 0 || lr.Start < r.Start {
				r.Start = lr.Start
			}
			if lr.End > r.End {
				r.End = lr.End
			}
		}
		return ast.WalkContinue, nil
	})
	if r.Start < 0 {
		p := n.Pos()
		if p < 0 || p > len(src) {
			p = 0
		}
		return document.Range{Start: p, End: p}
	}
	return document.Range{Start: lineStart(src, r.Start), End: r.End}
}

func lineStart(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	i := bytes.LastIndexByte(src[:off], '\n')
	return i + 1
}

// lineEndAt returns the end of the line holding off, before "\r\n" or "\n".
func lineEndAt(src []byte, off int) int {
	if off > len(src) {
		return len(src)
	}
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	end := off + i
	if end > off && src[end-1] == '\r' {
		end--
	}
	return end
}

func nextLineStart(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}
