package browser

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// ariaLine reads one line of an accessibility snapshot in the
// Playwright-style form camofox sends:
//
//   - heading "Install" [level=2] [e4]
//   - link "Docs" [e7]:
//   - /url: /docs
//   - paragraph: Some text
var ariaLine = regexp.MustCompile(`^(\s*)- ([^\s:"\[]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*):?\s*(.*)$`)

var ariaLevel = regexp.MustCompile(`\[level=(\d)\]`)

// chromeRoles are landmark roles whose text is site chrome, left out of
// the Markdown as <nav> and <footer> are for HTML.
var chromeRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true}

// PageFromSnapshot turns an accessibility snapshot into a Page: headings
// become Markdown headings and the outline, links are collected, text
// roles become lines, and landmark chrome is left out of the text.
func PageFromSnapshot(pageURL, snap string) *Page {
	base, _ := url.Parse(pageURL)
	p := &Page{URL: pageURL}
	var md []string
	seen := map[string]bool{}
	skipIndent := -1
	pendingLink := ""
	for _, line := range strings.Split(snap, "\n") {
		m := ariaLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent, role, name, attrs, rest := len(m[1]), m[2], unquote(m[3]), m[4], strings.TrimSpace(m[5])
		if role == "/url" {
			if pendingLink != "" || name == "" {
				if l, ok := ariaLink(base, pendingLink, rest); ok && !seen[l.URL] {
					seen[l.URL] = true
					p.Links = append(p.Links, l)
				}
			}
			pendingLink = ""
			continue
		}
		pendingLink = ""
		if skipIndent >= 0 && indent > skipIndent {
			if role == "link" {
				pendingLink = name
			}
			continue
		}
		skipIndent = -1
		switch {
		case chromeRoles[role]:
			skipIndent = indent
		case role == "heading":
			lvl := 2
			if lm := ariaLevel.FindStringSubmatch(attrs); lm != nil {
				lvl, _ = strconv.Atoi(lm[1])
			}
			if name != "" {
				p.Headings = append(p.Headings, Heading{Level: lvl, Text: name})
				md = append(md, strings.Repeat("#", lvl)+" "+name)
				if p.Title == "" {
					p.Title = name
				}
			}
		case role == "link":
			pendingLink = name
			if name != "" {
				md = append(md, name)
			}
		case role == "img":
			if name != "" {
				md = append(md, name)
			}
		default:
			text := rest
			if text == "" {
				text = name
			}
			if text != "" {
				if role == "listitem" {
					text = "- " + text
				}
				md = append(md, text)
			}
		}
	}
	p.Markdown = strings.Join(md, "\n\n")
	return p
}

func ariaLink(base *url.URL, label, href string) (Link, bool) {
	if base == nil || href == "" || strings.HasPrefix(href, "#") {
		return Link{}, false
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return Link{}, false
	}
	u.Fragment = ""
	return Link{Text: cut(collapse(label), maxLinkText), URL: u.String()}, true
}

func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}
