// Package fakesearx is a stand-in for SearXNG's JSON search API on
// 127.0.0.1, for tests of the search tool and of runs that search. Like a
// real SearXNG it answers GET /search?q=...&format=json, refuses formats
// it was not configured for with 403 (both as icm demo's canned search
// backend does, whose handler it wraps), and can be told to rate-limit
// (429) as SearXNG's limiter does; it records every query.
package fakesearx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// Result is one search hit, with SearXNG's field names.
type Result = canned.SearchResult

// Server is a running fake SearXNG.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	searxng http.Handler
	queries []string
	status  int
}

// Start serves answer's results on 127.0.0.1; Close stops it. A nil
// answer gives Canned results for every query.
func Start(answer func(query string) []Result) *Server {
	if answer == nil {
		answer = Canned
	}
	s := &Server{searxng: canned.SearXNG(answer)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// New starts a fake SearXNG for one test and stops it when the test ends.
func New(t testing.TB, answer func(query string) []Result) *Server {
	s := Start(answer)
	t.Cleanup(s.Close)
	return s
}

// Fail makes every later search answer with HTTP status code (0 restores
// normal answers): 403 is "JSON format not enabled", 429 the limiter.
func (s *Server) Fail(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// Queries returns the queries received, in order.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// handle records the query and fails as told, or lets SearXNG's
// answer through.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.URL.Path == "/search" {
		s.mu.Lock()
		s.queries = append(s.queries, q.Get("q"))
		status := s.status
		s.mu.Unlock()
		if status != 0 && q.Get("format") == "json" {
			http.Error(w, http.StatusText(status), status)
			return
		}
	}
	s.searxng.ServeHTTP(w, r)
}

// Canned answers any query with eight numbered results whose URLs are on
// example.com and whose snippets repeat the query.
func Canned(query string) []Result {
	var out []Result
	for i := 1; i <= 8; i++ {
		n := string(rune('0' + i))
		out = append(out, Result{
			Title:   "Result " + n + " for " + query,
			URL:     "https://example.com/" + strings.ReplaceAll(strings.ToLower(query), " ", "-") + "/" + n,
			Content: "Snippet " + n + " about " + query + ".",
			Engine:  "fake",
		})
	}
	return out
}
