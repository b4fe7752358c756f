// Package termdoc renders Markdown reference pages as plain text for a
// terminal, the way a man page reads: section headings flush left in
// capitals, text indented and filled to the width, lists with hanging
// indents, code blocks kept verbatim, tables laid out in columns (cells
// wrapped when the table is wider than the page). It writes no colour or
// escape codes, so the output pipes and pages cleanly. goldmark parses.
package termdoc

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Layout of a page.
const (
	// bodyIndent is where text under a section heading starts.
	bodyIndent = 4
	// codeIndent is added to the text's indent for code blocks.
	codeIndent = 4
	// minWidth keeps very narrow terminals readable.
	minWidth = 40
)

// Render returns src as terminal text filled to width columns.
func Render(src []byte, width int) string {
	width = max(width, minWidth)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src))
	r := &renderer{src: src, width: width}
	r.blocks(doc, bodyIndent)
	return strings.TrimRight(r.out.String(), "\n") + "\n"
}

type renderer struct {
	src   []byte
	width int
	out   bytes.Buffer
}

// gap puts one blank line between blocks.
func (r *renderer) gap() {
	b := r.out.Bytes()
	if len(b) == 0 || bytes.HasSuffix(b, []byte("\n\n")) {
		return
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		r.out.WriteByte('\n')
		return
	}
	r.out.WriteString("\n\n")
}

// blocks renders the block children of n at indent.
func (r *renderer) blocks(n ast.Node, indent int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.block(c, indent)
	}
}

func (r *renderer) block(n ast.Node, indent int) {
	switch n := n.(type) {
	case *ast.Heading:
		r.gap()
		title := r.inline(n)
		switch n.Level {
		case 1, 2:
			r.out.WriteString(strings.ToUpper(title) + "\n")
		default:
			r.out.WriteString(strings.Repeat(" ", bodyIndent-2) + title + "\n")
		}
	case *ast.Paragraph, *ast.TextBlock:
		r.gap()
		r.fill(r.inline(n), indent, indent)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.gap()
		r.code(n, indent+codeIndent)
	case *ast.List:
		r.gap()
		r.list(n, indent)
	case *ast.Blockquote:
		r.gap()
		r.blocks(n, indent+2)
	case *extast.Table:
		r.gap()
		r.table(n, indent)
	case *ast.ThematicBreak:
		r.gap()
	case *ast.HTMLBlock:
		// Comments and raw HTML are for the source, not the page.
	default:
		if n.HasChildren() {
			r.blocks(n, indent)
		}
	}
}

// fill writes words filled to the width: the first line at first, the
// rest at indent.
func (r *renderer) fill(s string, first, indent int) {
	for i, line := range wrap(s, r.width-indent, r.width-first) {
		pad := indent
		if i == 0 {
			pad = first
		}
		r.out.WriteString(strings.Repeat(" ", pad) + line + "\n")
	}
}

// wrap fills words into lines of at most width runes (firstWidth for the
// first); a word longer than a line gets a line of its own.
func wrap(s string, width, firstWidth int) []string {
	var lines []string
	var cur strings.Builder
	limit := firstWidth
	for _, w := range strings.Fields(s) {
		n := runeLen(cur.String())
		if n > 0 && n+1+runeLen(w) > limit {
			lines = append(lines, cur.String())
			cur.Reset()
			limit = width
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func runeLen(s string) int { return len([]rune(s)) }

// code writes a code block's lines as they are.
func (r *renderer) code(n ast.Node, indent int) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimRight(string(seg.Value(r.src)), "\n\r \t")
		if line == "" {
			r.out.WriteString("\n")
			continue
		}
		r.out.WriteString(strings.Repeat(" ", indent) + line + "\n")
	}
}

// list writes items with a hanging indent under their marker.
func (r *renderer) list(l *ast.List, indent int) {
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "•"
		if l.IsOrdered() {
			marker = itoa(num) + "."
			num++
		}
		inner := indent + runeLen(marker) + 1
		first := true
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				if first {
					for i, line := range wrap(r.inline(c), r.width-inner, r.width-inner) {
						lead := strings.Repeat(" ", inner)
						if i == 0 {
							lead = strings.Repeat(" ", indent) + marker + " "
						}
						r.out.WriteString(lead + line + "\n")
					}
					first = false
					continue
				}
				r.gap()
				r.fill(r.inline(c), inner, inner)
			default:
				if first {
					r.out.WriteString(strings.Repeat(" ", indent) + marker + "\n")
					first = false
				}
				r.block(c, inner)
			}
		}
		if first {
			r.out.WriteString(strings.Repeat(" ", indent) + marker + "\n")
		}
		if !l.IsTight && item.NextSibling() != nil {
			r.out.WriteString("\n")
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// inline flattens a block's inline content to one line of text: code
// spans and emphasis lose their marks, links keep their target when it is
// an address, soft and hard breaks become spaces, raw HTML is dropped.
func (r *renderer) inline(n ast.Node) string {
	var b strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(r.src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.CodeSpan:
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if s, ok := t.(*ast.Text); ok {
						b.Write(s.Segment.Value(r.src))
					}
				}
			case *ast.AutoLink:
				b.Write(c.URL(r.src))
			case *ast.Link:
				start := b.Len()
				walk(c)
				label := b.String()[start:]
				if dest := string(c.Destination); strings.Contains(dest, "://") && dest != label {
					b.WriteString(" <" + dest + ">")
				}
			case *ast.RawHTML:
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
