package canned_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/demo/canned"
	"github.com/icm-tool/icm/server/internal/mcpserver/search"
)

// TestSearchAnswersAsSearXNG: icm's own search client reads the canned
// backend's answer, and a format other than JSON is refused as SearXNG
// refuses it.
func TestSearchAnswersAsSearXNG(t *testing.T) {
	var asked []string
	s, err := canned.StartSearch(func(q string) []canned.SearchResult {
		asked = append(asked, q)
		return []canned.SearchResult{{Title: "A", URL: "http://127.0.0.1/a", Content: "about " + q}, {Title: "B", URL: "http://127.0.0.1/b"}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := (&search.Client{BaseURL: s.URL()}).Search(t.Context(), "go tools", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Content != "about go tools" || len(asked) != 1 {
		t.Errorf("results %+v for queries %v", got, asked)
	}
	resp, err := http.Get(s.URL() + "/search?q=x&format=html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("format=html: status %d, want 403", resp.StatusCode)
	}
}

// TestSiteServesItsPages: each page is an HTML document at its path,
// with its title escaped; nothing else is there.
func TestSiteServesItsPages(t *testing.T) {
	site, err := canned.StartSite(map[string]canned.Page{"/guide": {Title: "Tips & tricks", Body: "<p>Read me.</p>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	if site.Page("/guide") != site.URL()+"/guide" || !strings.HasPrefix(site.URL(), "http://"+site.Host()) {
		t.Errorf("addresses %s %s %s", site.Page("/guide"), site.URL(), site.Host())
	}
	get := func(path string) (int, string, string) {
		resp, err := http.Get(site.Page(path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	code, ctype, body := get("/guide")
	if code != http.StatusOK || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "<title>Tips &amp; tricks</title>") || !strings.Contains(body, "<p>Read me.</p>") {
		t.Errorf("/guide: %d %s\n%s", code, ctype, body)
	}
	if code, _, _ := get("/other"); code != http.StatusNotFound {
		t.Errorf("/other: %d, want 404", code)
	}
}
