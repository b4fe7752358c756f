// Package export turns a Markdown file (a stage's output, typically the
// finished article) into one self-contained HTML file: goldmark rendering
// with GitHub-flavoured Markdown, code highlighted as CSS classes (Go,
// Python, shell and JSON, by icm's own tokenizers), all CSS inline, a table of contents, and every web link turned
// into a numbered citation that points at a reference list. No script, no
// external style sheet, font or image: a Content-Security-Policy says so.
// Raw HTML in the Markdown is not passed through, and goldmark drops
// dangerous link targets (javascript: and the like).
package export

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
)

// Source is a known source: its URL and a title for the reference list.
type Source struct {
	URL   string
	Title string
}

// Options tune an export.
type Options struct {
	// Title is the page title; "" takes the first level-1 heading.
	Title string
	// Sources give titles to cited URLs (see SourcesFrom).
	Sources []Source
	// Style is the code style, one of Styles (DefaultStyle when empty).
	Style string
}

// Reference is one numbered citation.
type Reference struct {
	N     int
	URL   string
	Title string
}

// Page is an exported document.
type Page struct {
	HTML       []byte
	References []Reference
	Headings   []Heading
}

// Heading is one table-of-contents entry.
type Heading struct {
	Level int
	ID    string
	Text  string
}

// HTML renders src as a self-contained page.
func HTML(src []byte, opts Options) (*Page, error) {
	style := opts.Style
	if style == "" {
		style = DefaultStyle
	}
	codeCSS, ok := codeStyles[style]
	if !ok {
		return nil, fault.InvalidRequest(fmt.Sprintf("unknown code style %q; use %s", style, strings.Join(Styles(), " or ")), "choose one of the code styles")
	}
	// goldmark's time grows with size times nesting: refuse what icm
	// would not parse anywhere else, at once.
	if err := markdown.Check(src); err != nil {
		return nil, err
	}
	cites := &citations{byURL: map[string]int{}, titles: map[string]string{}}
	for _, s := range opts.Sources {
		cites.titles[normURL(s.URL)] = s.Title
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(cites, 100))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(citeRenderer{}, 100), util.Prioritized(codeRenderer{}, 100))),
	)
	doc := md.Parser().Parse(text.NewReader(src))
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		return nil, fmt.Errorf("unable to render the Markdown: %w", err)
	}
	page := &Page{References: cites.refs, Headings: headings(doc, src)}
	title := opts.Title
	if title == "" {
		for _, h := range page.Headings {
			if h.Level == 1 {
				title = h.Text
				break
			}
		}
	}
	if title == "" {
		title = "Article"
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s\n%s</style>\n</head>\n<body>\n", html.EscapeString(title), pageCSS, codeCSS)
	b.WriteString("<main>\n")
	writeTOC(&b, page.Headings)
	b.WriteString("<article>\n")
	b.Write(body.Bytes())
	b.WriteString("</article>\n")
	writeReferences(&b, page.References)
	b.WriteString("</main>\n</body>\n</html>\n")
	page.HTML = b.Bytes()
	return page, nil
}

func headings(doc ast.Node, src []byte) []Heading {
	var out []Heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		id := ""
		if v, ok := h.AttributeString("id"); ok {
			if bs, ok := v.([]byte); ok {
				id = string(bs)
			}
		}
		out = append(out, Heading{Level: h.Level, ID: id, Text: plainText(h, src)})
		return ast.WalkSkipChildren, nil
	})
	return out
}

func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *citeNode:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// writeTOC lists the level-2 and level-3 headings.
func writeTOC(b *bytes.Buffer, hs []Heading) {
	var items []Heading
	for _, h := range hs {
		if (h.Level == 2 || h.Level == 3) && h.ID != "" {
			items = append(items, h)
		}
	}
	if len(items) == 0 {
		return
	}
	b.WriteString("<nav class=\"toc\" aria-label=\"Contents\">\n<h2>Contents</h2>\n<ul>\n")
	for _, h := range items {
		fmt.Fprintf(b, "<li class=\"toc-%d\"><a href=\"#%s\">%s</a></li>\n", h.Level, html.EscapeString(h.ID), html.EscapeString(h.Text))
	}
	b.WriteString("</ul>\n</nav>\n")
}

func writeReferences(b *bytes.Buffer, refs []Reference) {
	if len(refs) == 0 {
		return
	}
	b.WriteString("<section class=\"references\" id=\"references\">\n<h2>References</h2>\n<ol>\n")
	for _, r := range refs {
		u := html.EscapeString(r.URL)
		title := r.Title
		if title == "" {
			title = r.URL
		}
		fmt.Fprintf(b, "<li id=\"ref-%d\"><a href=\"%s\">%s</a>", r.N, u, html.EscapeString(title))
		if r.Title != "" {
			fmt.Fprintf(b, " <span class=\"url\">%s</span>", u)
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>\n</section>\n")
}

// normURL makes the URLs of one source compare equal (no fragment, no
// trailing slash).
func normURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return s
	}
	u.Fragment = ""
	return strings.TrimSuffix(u.String(), "/")
}

const pageCSS = `:root { color-scheme: light; }
body { margin: 0; background: #fdfdfc; color: #1f2328; font: 17px/1.6 Georgia, "Times New Roman", serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1, h2, h3, h4 { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; line-height: 1.25; }
h1 { font-size: 2rem; margin-top: 0; }
a { color: #0b5cad; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.88em; }
:not(pre) > code { background: #f0f1f3; padding: 0.1em 0.3em; border-radius: 4px; }
pre { padding: 0.9rem 1rem; overflow-x: auto; border-radius: 6px; border: 1px solid #e3e5e8; line-height: 1.45; }
blockquote { margin: 1rem 0; padding: 0 1rem; border-left: 4px solid #d0d7de; color: #57606a; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.6rem; }
nav.toc { background: #f6f8fa; border: 1px solid #e3e5e8; border-radius: 6px; padding: 0.5rem 1.25rem; margin: 0 0 2rem; font-family: system-ui, sans-serif; font-size: 0.95rem; }
nav.toc h2 { font-size: 1rem; margin: 0.5rem 0; }
nav.toc ul { list-style: none; padding-left: 0; }
nav.toc li.toc-3 { padding-left: 1.25rem; }
sup.cite { font-size: 0.7em; line-height: 0; }
sup.cite a { text-decoration: none; }
section.references { border-top: 1px solid #d0d7de; margin-top: 3rem; font-size: 0.92rem; }
section.references .url { color: #57606a; word-break: break-all; }
`
