package browser

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

func TestHTTPBackendPages(t *testing.T) {
	site := sites.New(t)
	l := httpLoader(t, site, nil)
	t.Run("long documentation page", func(t *testing.T) {
		p, err := l.Load(t.Context(), site.Page(sites.PathLong))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range allMarkers() {
			if !strings.Contains(p.Markdown, m) {
				t.Fatalf("main content lacks %s", m)
			}
		}
		for _, chrome := range []string{"Accept all cookies", "Privacy", "Sign in"} {
			if strings.Contains(p.Markdown, chrome) {
				t.Errorf("main content keeps page chrome %q", chrome)
			}
		}
		if !strings.Contains(p.Markdown, "icm approve 01-scope") || !strings.Contains(p.Markdown, "## Section 3") {
			t.Errorf("code or headings lost from the Markdown")
		}
		if p.Title == "" || len(p.Markdown) < 38000 {
			t.Errorf("title %q, %d characters", p.Title, len(p.Markdown))
		}
	})
	t.Run("links page", func(t *testing.T) {
		p, err := l.Load(t.Context(), site.Page(sites.PathLinks))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Links) != sites.LinkCount {
			t.Fatalf("%d links, want %d: %+v", len(p.Links), sites.LinkCount, p.Links)
		}
		byURL := map[string]string{}
		for _, l := range p.Links {
			byURL[l.URL] = l.Text
			if !strings.HasPrefix(l.URL, "http") || strings.Contains(l.URL, "#") {
				t.Errorf("link %q is not an absolute web URL without fragment", l.URL)
			}
			if utf8.RuneCountInString(l.Text) > maxLinkText {
				t.Errorf("label of %s has %d characters", l.URL, utf8.RuneCountInString(l.Text))
			}
		}
		if got := byURL[site.Page("/chapter/1")]; got != "Chapter 1" {
			t.Errorf("first label of /chapter/1 = %q", got)
		}
		if got := byURL["https://example.org/spec"]; got != "The spec" {
			t.Errorf("image link label = %q", got)
		}
		if got := byURL["https://example.org/a-very-long-link"]; !strings.HasSuffix(got, "…") {
			t.Errorf("long label not cut: %q", got)
		}
	})
	t.Run("nested headings", func(t *testing.T) {
		p, err := l.Load(t.Context(), site.Page(sites.PathNested))
		if err != nil {
			t.Fatal(err)
		}
		if got := formatOutline(p.Headings); got != sites.NestedOutline {
			t.Fatalf("outline:\n%s\nwant:\n%s", got, sites.NestedOutline)
		}
	})
	t.Run("plain text", func(t *testing.T) {
		p, err := l.Load(t.Context(), site.Page(sites.PathPlain))
		if err != nil {
			t.Fatal(err)
		}
		if p.Markdown != sites.PlainText {
			t.Fatalf("text = %q", p.Markdown)
		}
	})
	t.Run("script page without a browser is an empty shell", func(t *testing.T) {
		p, err := l.Load(t.Context(), site.Page(sites.PathScript))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.Markdown, sites.ScriptText) {
			t.Fatalf("plain HTTP saw script output: %q", p.Markdown)
		}
	})
	t.Run("pdf is refused", func(t *testing.T) {
		_, err := l.Load(t.Context(), site.Page(sites.PathPDF))
		if err == nil || !strings.Contains(err.Error(), "not a web page") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("site not on the allow-list is refused", func(t *testing.T) {
		other := sites.New(t)
		_, err := l.Load(t.Context(), other.Page(sites.PathLong))
		var be *fetch.BlockedError
		if !errors.As(err, &be) || other.Total() != 0 {
			t.Fatalf("err = %v, hits = %d", err, other.Total())
		}
	})
}

func TestPageFromBodyCharset(t *testing.T) {
	body := []byte("<html><head><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e.</p></body></html>")
	p, err := PageFromBody("http://x.test/", body, "text/html; charset=iso-8859-1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Café" || !strings.Contains(p.Markdown, "Crème brûlée.") {
		t.Fatalf("title %q, text %q", p.Title, p.Markdown)
	}
}
