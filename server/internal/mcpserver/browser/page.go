package browser

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Page is a loaded page in the form every tool reads.
type Page struct {
	// URL is the address the page was finally read from.
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// Markdown is the page's main content.
	Markdown string    `json:"markdown"`
	Links    []Link    `json:"links,omitempty"`
	Headings []Heading `json:"headings,omitempty"`
}

// Link is one hyperlink of a page, resolved to an absolute URL.
type Link struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// Heading is one heading of a page's outline.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// maxLinkText caps a link label; longer labels are cut and end in "…".
const maxLinkText = 100

// PageFromBody turns a fetched body into a Page according to its content
// type: HTML is reduced to its main content, plain text and Markdown are
// kept as they are, anything else is refused.
func PageFromBody(pageURL string, body []byte, contentType string) (*Page, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "" || mt == "text/html" || mt == "application/xhtml+xml":
		r, err := charset.NewReader(bytes.NewReader(body), contentType)
		if err != nil {
			return nil, fmt.Errorf("unable to decode %s: %w", pageURL, err)
		}
		return PageFromHTML(pageURL, r)
	case strings.HasPrefix(mt, "text/"), mt == "application/json", mt == "application/xml":
		text := string(body)
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		return &Page{URL: pageURL, Markdown: strings.TrimSpace(text)}, nil
	default:
		return nil, fmt.Errorf("%s is %s, not a web page; only HTML and text can be read", pageURL, mt)
	}
}

// PageFromHTML parses an HTML page.
func PageFromHTML(pageURL string, r io.Reader) (*Page, error) {
	pu, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("unable to read page URL %q: %w", pageURL, err)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("unable to parse the HTML of %s: %w", pageURL, err)
	}
	if b := baseHref(doc); b != "" {
		if bu, err := pu.Parse(b); err == nil {
			pu = bu
		}
	}
	p := &Page{URL: pageURL, Links: links(doc, pu), Headings: headings(doc)}
	md, title, err := mainContent(doc, pu)
	if err != nil {
		return nil, err
	}
	p.Markdown, p.Title = md, title
	if p.Title == "" {
		p.Title = documentTitle(doc)
	}
	return p, nil
}

// mainContent returns the page's main content as Markdown. Readability
// finds the article; when it finds little (a page that is mostly a list
// or a table), the whole body is used instead so nothing is lost.
func mainContent(doc *html.Node, pageURL *url.URL) (string, string, error) {
	bodyMD, err := toMarkdown(cleanBody(doc), pageURL)
	if err != nil {
		return "", "", err
	}
	art, err := readability.FromDocument(doc, pageURL)
	if err != nil || art.Node == nil {
		return bodyMD, "", nil
	}
	artMD, err := toMarkdown(art.Node, pageURL)
	if err != nil || len(artMD) < len(bodyMD)/4 {
		return bodyMD, art.Title(), nil
	}
	return artMD, art.Title(), nil
}

func toMarkdown(n *html.Node, pageURL *url.URL) (string, error) {
	if n == nil {
		return "", nil
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(n, converter.WithDomain(pageURL.String()))
	if err != nil {
		return "", fmt.Errorf("unable to convert %s to Markdown: %w", pageURL, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// cleanBody returns a copy of <body> without scripts, styles and other
// elements that carry no text for a reader.
func cleanBody(doc *html.Node) *html.Node {
	body := find(doc, atom.Body)
	if body == nil {
		body = doc
	}
	var copyNode func(*html.Node) *html.Node
	copyNode = func(n *html.Node) *html.Node {
		c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute(nil), n.Attr...)}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && skipped(ch.DataAtom) {
				continue
			}
			c.AppendChild(copyNode(ch))
		}
		return c
	}
	return copyNode(body)
}

func skipped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object, atom.Canvas:
		return true
	}
	return false
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func baseHref(doc *html.Node) string {
	if head := find(doc, atom.Head); head != nil {
		if b := find(head, atom.Base); b != nil {
			return attr(b, "href")
		}
	}
	return ""
}

func documentTitle(doc *html.Node) string {
	if t := find(doc, atom.Title); t != nil {
		return collapse(text(t))
	}
	return ""
}

// text is the visible text under n.
func text(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			if skipped(n.DataAtom) {
				return
			}
			if n.DataAtom == atom.Img {
				sb.WriteString(attr(n, "alt"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			sb.WriteByte(' ')
		}
	}
	walk(n)
	return sb.String()
}

// collapse folds runs of white space into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n runes, ending in "…" when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
