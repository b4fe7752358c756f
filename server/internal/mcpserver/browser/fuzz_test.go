package browser

import (
	"strings"
	"testing"
)

func FuzzPageFromSnapshot(f *testing.F) {
	f.Add(fixtureSnapshot)
	f.Add("- link \"a\\\"b\" [e1]:\n  - /url: ../x\n- heading \"H\" [level=9]")
	f.Fuzz(func(t *testing.T, snap string) {
		p := PageFromSnapshot("https://x.test/a/b", snap)
		for _, h := range p.Headings {
			if h.Text == "" {
				t.Fatalf("empty heading from %q", snap)
			}
		}
		for _, l := range p.Links {
			if !strings.HasPrefix(l.URL, "http") {
				t.Fatalf("link %q is not a web URL", l.URL)
			}
		}
	})
}

func FuzzPageFromHTML(f *testing.F) {
	f.Add(`<html><head><base href="/x/"><title>T</title></head><body><h2>A</h2><a href="y#z">y</a><p>text</p></body></html>`)
	f.Add(`<a href="javascript:1">x</a><h7>no</h7><script>var a="<h1>";</script>`)
	f.Fuzz(func(t *testing.T, doc string) {
		p, err := PageFromHTML("https://x.test/", strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, l := range p.Links {
			if !strings.HasPrefix(l.URL, "http") || strings.Contains(l.URL, "#") {
				t.Fatalf("link %q", l.URL)
			}
		}
		for _, h := range p.Headings {
			if h.Level < 1 || h.Level > 6 {
				t.Fatalf("heading level %d", h.Level)
			}
		}
	})
}
