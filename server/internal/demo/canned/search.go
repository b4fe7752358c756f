package canned

import (
	"encoding/json"
	"net/http"
)

// SearchResult is one search hit, with SearXNG's field names.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
	Engine  string `json:"engine,omitempty"`
}

// Search is a stand-in for SearXNG's JSON search API.
type Search struct {
	*server
}

// StartSearch answers every search with answer's results, on a free port
// of 127.0.0.1; Close stops it.
func StartSearch(answer func(query string) []SearchResult) (*Search, error) {
	s, err := listen("search backend", SearXNG(answer))
	if err != nil {
		return nil, err
	}
	return &Search{s}, nil
}

// SearXNG answers GET /search?q=...&format=json as SearXNG does, with
// answer's results for q, and refuses any other format with 403, as a
// SearXNG whose settings do not enable JSON does.
func SearXNG(answer func(query string) []SearchResult) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("format") != "json" {
			http.Error(w, "403 Forbidden", http.StatusForbidden)
			return
		}
		results := answer(q.Get("q"))
		if results == nil {
			results = []SearchResult{}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"query":                q.Get("q"),
			"number_of_results":    len(results),
			"results":              results,
			"answers":              []any{},
			"suggestions":          []any{},
			"unresponsive_engines": []any{},
		})
	})
	return mux
}
