package markdown

import (
	"bytes"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/icm-tool/icm/server/internal/document"
)

// An HTML comment (`<!-- … -->`) is a note an author leaves for
// themselves: a renderer shows nobody its text, and neither does icm. The
// comments are found as CommonMark reads them, so a comment written as an
// example inside a code span or a fenced block stays text.

// Comments returns the byte ranges of src's HTML comments, in order: each
// comment of an HTML block that starts with one, and each inline comment.
func Comments(src []byte) []document.Range {
	if !bytes.Contains(src, []byte("<!--")) || Check(src) != nil {
		return nil
	}
	root := newParser().Parse(text.NewReader(src))
	var out []document.Range
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			if n.HTMLBlockType == ast.HTMLBlockType2 {
				out = append(out, blockComments(src, n)...)
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				r := document.Range{Start: n.Segments.At(0).Start, End: n.Segments.At(n.Segments.Len() - 1).Stop}
				if bytes.HasPrefix(src[r.Start:], []byte("<!--")) {
					out = append(out, r)
				}
			}
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// blockComments are the comments of an HTML block of comment kind: from
// each `<!--` to its `-->` (or the block's end, for one never closed),
// leaving any text after the last one on its line.
func blockComments(src []byte, n *ast.HTMLBlock) []document.Range {
	lines := n.Lines()
	if lines.Len() == 0 {
		return nil
	}
	start, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	if n.HasClosure() {
		end = max(end, n.ClosureLine.Stop)
	}
	var out []document.Range
	for at := start; at < end; {
		open := bytes.Index(src[at:end], []byte("<!--"))
		if open < 0 {
			break
		}
		open += at
		stop := end
		if close := bytes.Index(src[open+4:end], []byte("-->")); close >= 0 {
			stop = open + 4 + close + 3
		}
		out = append(out, document.Range{Start: open, End: stop})
		at = stop
	}
	return out
}

// Uncomment returns s without its HTML comments. A line that held nothing
// but comments goes too, so no blank line is left where a note was.
func Uncomment(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	src := []byte(s)
	var b strings.Builder
	at := 0
	for _, r := range Comments(src) {
		if r.Start < at {
			continue
		}
		start, end := r.Start, r.End
		lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
		lineEnd := len(src)
		if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
			lineEnd = end + i
		}
		if lineStart >= at && isSpace(src[lineStart:start]) && isSpace(src[end:lineEnd]) {
			// The comment is its lines' only text: drop them whole.
			start, end = lineStart, min(lineEnd+1, len(src))
		}
		b.Write(src[at:start])
		at = end
	}
	b.Write(src[at:])
	return b.String()
}

func isSpace(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }
