package canned

import (
	"fmt"
	"html"
	"net/http"
)

// Page is one page of the demo's site: its title and the HTML of its
// content.
type Page struct {
	Title string
	Body  string
}

// Site serves the demo's pages, each at its path, as HTML documents.
type Site struct {
	*server
}

// StartSite serves pages, keyed by path, on a free port of 127.0.0.1;
// Close stops it.
func StartSite(pages map[string]Page) (*Site, error) {
	mux := http.NewServeMux()
	for path, p := range pages {
		doc := fmt.Sprintf("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><main><article>\n%s\n</article></main></body></html>\n",
			html.EscapeString(p.Title), p.Body)
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, doc)
		})
	}
	s, err := listen("web site", mux)
	if err != nil {
		return nil, err
	}
	return &Site{s}, nil
}

// Page returns the address of a path on the site.
func (s *Site) Page(path string) string { return s.URL() + path }
