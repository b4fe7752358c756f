// Package sites serves the fixture web sites the reader tools are tested
// against, on 127.0.0.1: a long documentation page, a script-heavy page
// whose text only exists after its scripts run, a page with many links, a
// page with nested headings, redirects and plain text. Every request is
// counted, so a test can assert that a refused fetch reached nothing.
package sites

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Paths of the fixture pages.
const (
	PathLong     = "/docs/long"
	PathScript   = "/app"
	PathLinks    = "/links"
	PathNested   = "/nested"
	PathPlain    = "/plain.txt"
	PathRedirect = "/redirect" // ?to=URL
	PathPDF      = "/file.pdf"
	PathBeacon   = "/beacon" // ?to=URL: its script requests URL
)

// Site is a running fixture site.
type Site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// Start serves the fixture site on 127.0.0.1; Close stops it.
func Start() *Site {
	s := &Site{hits: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc(PathLong, page(LongDoc()))
	mux.HandleFunc(PathScript, page(scriptPage))
	mux.HandleFunc(PathLinks, page(linksPage))
	mux.HandleFunc(PathNested, page(nestedPage))
	mux.HandleFunc(PathPlain, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, PlainText)
	})
	mux.HandleFunc(PathPDF, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4\n")
	})
	mux.HandleFunc(PathBeacon, page(beaconPage))
	mux.HandleFunc(PathRedirect, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	return s
}

// New starts the site for one test and stops it when the test ends.
func New(t testing.TB) *Site {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Page returns the absolute URL of a path on the site.
func (s *Site) Page(path string) string { return s.URL + path }

// Host returns the site's "127.0.0.1:port", the form an allow-list takes.
func (s *Site) Host() string { return strings.TrimPrefix(s.URL, "http://") }

// Hits returns how many requests path received.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Total returns how many requests the site received.
func (s *Site) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
}

func page(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}
