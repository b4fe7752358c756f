package browser

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// links lists the page's hyperlinks in document order, resolved against
// base, one entry per absolute URL (the first label wins). Links that
// lead nowhere a reader can follow (fragments of this page, javascript:,
// mailto:) are dropped.
func links(doc *html.Node, base *url.URL) []Link {
	var out []Link
	seen := map[string]int{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && skipped(n.DataAtom) {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			if l, ok := link(n, base); ok {
				if i, dup := seen[l.URL]; dup {
					if out[i].Text == "" {
						out[i].Text = l.Text
					}
				} else {
					seen[l.URL] = len(out)
					out = append(out, l)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func link(n *html.Node, base *url.URL) (Link, bool) {
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return Link{}, false
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return Link{}, false
	}
	u.Fragment = ""
	u.RawFragment = ""
	label := collapse(text(n))
	if label == "" {
		label = collapse(attr(n, "aria-label"))
	}
	if label == "" {
		label = collapse(attr(n, "title"))
	}
	return Link{Text: cut(label, maxLinkText), URL: u.String()}, true
}

// headings lists h1-h6 in document order, leaving out those inside
// navigation, headers and footers, which name site chrome rather than the
// page's own sections.
func headings(doc *html.Node) []Heading {
	var out []Heading
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Nav, atom.Footer, atom.Script, atom.Style, atom.Template, atom.Noscript:
				return
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				if t := collapse(text(n)); t != "" {
					out = append(out, Heading{Level: int(n.Data[1] - '0'), Text: cut(t, 200)})
				}
				return
			}
			if attr(n, "role") == "navigation" || attr(n, "aria-hidden") == "true" {
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}
