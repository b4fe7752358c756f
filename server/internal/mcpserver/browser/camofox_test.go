package browser

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/fetch"
)

const fixtureSnapshot = `- banner:
  - navigation "Main":
    - link "Home" [e1]:
      - /url: /
    - heading "Site menu" [level=2]
- main:
  - heading "Field Manual" [level=1]
  - paragraph: How to run icm in the field.
  - heading "Install" [level=2]
  - list:
    - listitem: Download the binary.
    - listitem:
      - link "Release notes" [e2]:
        - /url: https://example.org/releases#latest
  - link "Mail" [e3]:
    - /url: mailto:x@example.org
- contentinfo:
  - paragraph: Copyright 2026
`

// fakeCamofox records tab lifecycles and serves a snapshot in two pages.
type fakeCamofox struct {
	mu      sync.Mutex
	opened  []string
	deleted []string
	urls    []string
	failGet bool
}

func (f *fakeCamofox) handler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/tabs":
			var body map[string]string
			json.NewDecoder(r.Body).Decode(&body)
			if body["userId"] == "" {
				http.Error(w, "userId required", 400)
				return
			}
			id := "tab" + string(rune('0'+len(f.opened)))
			f.opened = append(f.opened, id)
			f.urls = append(f.urls, body["url"])
			json.NewEncoder(w).Encode(map[string]string{"tabId": id})
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/snapshot"):
			if f.failGet {
				http.Error(w, "boom", 500)
				return
			}
			half := strings.Index(fixtureSnapshot, "  - heading \"Install\"")
			if r.URL.Query().Get("offset") == "0" {
				json.NewEncoder(w).Encode(map[string]any{"url": "https://docs.example.org/manual", "snapshot": fixtureSnapshot[:half], "hasMore": true, "nextOffset": half})
			} else {
				json.NewEncoder(w).Encode(map[string]any{"url": "https://docs.example.org/manual", "snapshot": fixtureSnapshot[half:], "hasMore": false})
			}
		case r.Method == http.MethodDelete:
			f.deleted = append(f.deleted, strings.TrimPrefix(r.URL.Path, "/tabs/"))
			w.WriteHeader(204)
		default:
			http.NotFound(w, r)
		}
	})
}

func TestCamofoxBackend(t *testing.T) {
	fake := &fakeCamofox{}
	srv := httptest.NewServer(fake.handler(t))
	defer srv.Close()
	f, err := fetch.New(fetch.Options{Resolver: publicResolver{}, Guard: loopbackOnly})
	if err != nil {
		t.Fatal(err)
	}
	b := &CamofoxBackend{BaseURL: srv.URL, Fetcher: f}

	p, err := b.Load(t.Context(), "https://docs.example.org/manual")
	if err != nil {
		t.Fatal(err)
	}
	if got := formatOutline(p.Headings); got != "h1 Field Manual\n  h2 Install" {
		t.Errorf("outline = %q", got)
	}
	if len(p.Links) != 2 || p.Links[1].URL != "https://example.org/releases" || p.Links[1].Text != "Release notes" || p.Links[0].URL != "https://docs.example.org/" {
		t.Errorf("links = %+v", p.Links)
	}
	for _, want := range []string{"# Field Manual", "How to run icm in the field.", "- Download the binary."} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	for _, chrome := range []string{"Copyright", "Site menu"} {
		if strings.Contains(p.Markdown, chrome) {
			t.Errorf("markdown keeps chrome %q", chrome)
		}
	}

	fake.failGet = true
	if _, err := b.Load(t.Context(), "https://docs.example.org/other"); err == nil {
		t.Fatalf("a failed snapshot was not an error")
	}
	_, err = b.Load(t.Context(), "http://169.254.169.254/latest/")
	var be *fetch.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("blocked URL: err = %v", err)
	}
	if len(fake.opened) != 2 || len(fake.deleted) != 2 {
		t.Fatalf("opened %v, deleted %v: every tab must be closed, and a blocked URL never opened", fake.opened, fake.deleted)
	}
}

func TestCamofoxUnreachable(t *testing.T) {
	f, _ := fetch.New(fetch.Options{Resolver: publicResolver{}, Guard: loopbackOnly})
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	b := &CamofoxBackend{BaseURL: srv.URL, Fetcher: f}
	_, err := b.Load(t.Context(), "https://docs.example.org/")
	if err == nil || !strings.Contains(err.Error(), "docker compose -f docker/compose.yml up -d camofox") {
		t.Fatalf("err = %v", err)
	}
}
