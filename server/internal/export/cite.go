package export

import (
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// citations numbers every http(s) link in order of first appearance and
// puts a citation mark after it; links to one URL share a number.
type citations struct {
	byURL  map[string]int
	titles map[string]string
	refs   []Reference
}

// Transform implements parser.ASTTransformer.
func (c *citations) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var links []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Link, *ast.AutoLink:
			links = append(links, n)
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			// A link in a heading would put a mark into the table of contents.
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, n := range links {
		var dest, label string
		switch l := n.(type) {
		case *ast.Link:
			dest = string(l.Destination)
			label = plainText(l, src)
		case *ast.AutoLink:
			dest = string(l.URL(src))
		}
		if !strings.HasPrefix(dest, "http://") && !strings.HasPrefix(dest, "https://") {
			continue
		}
		key := normURL(dest)
		num, ok := c.byURL[key]
		if !ok {
			num = len(c.refs) + 1
			c.byURL[key] = num
			title := c.titles[key]
			if title == "" && label != "" && label != dest {
				title = label
			}
			c.refs = append(c.refs, Reference{N: num, URL: dest, Title: title})
		}
		n.Parent().InsertAfter(n.Parent(), n, &citeNode{N: num})
	}
}

// kindCite is the AST kind of a citation mark.
var kindCite = ast.NewNodeKind("Citation")

// citeNode is a citation mark: [n] linking to the reference list.
type citeNode struct {
	ast.BaseInline
	N int
}

func (n *citeNode) Kind() ast.NodeKind { return kindCite }

func (n *citeNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"N": fmt.Sprint(n.N)}, nil)
}

type citeRenderer struct{}

func (citeRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(kindCite, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			fmt.Fprintf(w, `<sup class="cite"><a href="#ref-%d">[%d]</a></sup>`, n.(*citeNode).N, n.(*citeNode).N)
		}
		return ast.WalkContinue, nil
	})
}

// codeRenderer writes a fenced code block highlighted by its info
// string's language (highlightHTML).
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindFencedCodeBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		fb := n.(*ast.FencedCodeBlock)
		var text strings.Builder
		lines := fb.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			text.Write(seg.Value(src))
		}
		lang := string(fb.Language(src))
		_, _ = w.WriteString(`<pre class="code"><code`)
		if lang != "" {
			_, _ = w.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
		}
		_, _ = w.WriteString(">" + highlightHTML(lang, text.String()) + "</code></pre>\n")
		return ast.WalkSkipChildren, nil
	})
}
