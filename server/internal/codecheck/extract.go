// Package codecheck checks the fenced Python and Go blocks of a Markdown
// article: each is parsed, then (unless its info string says `no-run`)
// run in the sandbox; a failing block can go to a model with its first
// error, and the fix replaces the block in the article before the check
// runs again. Checker implements verify.CodeChecker for the contract's
// `code-blocks parse|run` checks.
package codecheck

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Languages the checker knows.
const (
	Python = "python"
	Go     = "go"
)

// Block is one fenced code block of a document.
type Block struct {
	// Index numbers the document's fenced blocks from 1 (every language).
	Index int
	// Lang is Python, Go or "" for a language the checker does not run;
	// Info is the fence's whole info string.
	Lang, Info string
	// NoRun is set by a `no-run` (or `norun`) word in the info string: the
	// block is parsed but never run.
	NoRun bool
	Code  string
	// Line is the 1-based line of the opening fence; CodeLine that of the
	// first code line.
	Line, CodeLine int
	// start and end bound the content lines in the source (end includes
	// the last content line's newline); prefix is what precedes each
	// content line (a list's indentation, a quote's "> ").
	start, end int
	prefix     string
}

// md is the Markdown parser, made on first use.
var md = sync.OnceValue(func() goldmark.Markdown { return goldmark.New(goldmark.WithExtensions(extension.GFM)) })

// Extract returns every fenced code block of src in order.
func Extract(src []byte) []Block {
	doc := md().Parser().Parse(text.NewReader(src))
	var out []Block
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		b := Block{Index: len(out) + 1}
		if fb.Info != nil {
			b.Info = strings.TrimSpace(string(fb.Info.Segment.Value(src)))
		}
		b.Lang, b.NoRun = language(b.Info)
		fence := fb.Pos()
		if fence < 0 && fb.Info != nil {
			fence = fb.Info.Segment.Start
		}
		lines := fb.Lines()
		var code strings.Builder
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			code.Write(seg.Value(src))
		}
		b.Code = code.String()
		if lines.Len() > 0 {
			first, last := lines.At(0), lines.At(lines.Len()-1)
			b.start = lineStart(src, first.Start)
			b.prefix = string(src[b.start:first.Start])
			b.end = last.Stop
			b.CodeLine = lineOf(src, first.Start)
		} else {
			// An empty block: content goes right after the fence line.
			fl := max(fence, 0)
			b.start = lineEnd(src, fl)
			b.end = b.start
			b.prefix = string(src[lineStart(src, fl):fl])
			b.prefix = strings.Map(func(r rune) rune {
				if r == '>' || r == ' ' || r == '\t' {
					return r
				}
				return ' '
			}, b.prefix)
			b.CodeLine = lineOf(src, b.start)
		}
		if fence >= 0 {
			b.Line = lineOf(src, fence)
		} else {
			b.Line = b.CodeLine - 1
		}
		out = append(out, b)
		return ast.WalkSkipChildren, nil
	})
	return out
}

// language reads an info string such as "python", "py no-run", "golang",
// "python {.no-run}".
func language(info string) (lang string, noRun bool) {
	fields := strings.FieldsFunc(strings.ToLower(info), func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == '{' || r == '}' || r == '.'
	})
	if len(fields) == 0 {
		return "", false
	}
	switch fields[0] {
	case "python", "py", "python3":
		lang = Python
	case "go", "golang":
		lang = Go
	}
	for _, f := range fields[1:] {
		if f == "no-run" || f == "norun" {
			noRun = true
		}
	}
	return lang, noRun
}

// Replace returns src with block b's code replaced by code, keeping the
// fences, the info string and each line's prefix. A code line that could
// close the fence (a stray fence from a model's answer) is indented by
// four spaces, which makes it plain code, so the block stays whole.
func Replace(src []byte, b Block, code string) []byte {
	code = strings.TrimRight(strings.ReplaceAll(code, "\r\n", "\n"), "\n")
	var body bytes.Buffer
	if code != "" {
		for _, line := range strings.Split(code, "\n") {
			t := strings.TrimLeft(line, " ")
			if len(line)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
				line = "    " + line
			}
			body.WriteString(b.prefix)
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	out := make([]byte, 0, len(src)+body.Len())
	out = append(out, src[:b.start]...)
	out = append(out, body.Bytes()...)
	return append(out, src[b.end:]...)
}

func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

func lineEnd(src []byte, off int) int {
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

func lineOf(src []byte, off int) int {
	return bytes.Count(src[:min(off, len(src))], []byte{'\n'}) + 1
}
