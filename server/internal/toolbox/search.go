package toolbox

import (
	"slices"
	"strings"
)

// SearchBackend is where one of icm's own search servers sends its
// queries: the SearXNG URL its entry gives (--searxng, SEARXNG_URL), ""
// when it gives none and the server's default applies.
type SearchBackend struct {
	Server, URL string
}

// SearchBackends lists icm's own search servers of the box and their
// SearXNG, sorted by server.
func (b *Box) SearchBackends() []SearchBackend {
	var out []SearchBackend
	for name := range b.own {
		s := b.Registry[name]
		i := slices.Index(s.Args, "mcp")
		if i < 0 || i+1 >= len(s.Args) || s.Args[i+1] != "search" {
			continue
		}
		url := s.Env["SEARXNG_URL"]
		for j, a := range s.Args {
			if v, ok := strings.CutPrefix(a, "--searxng="); ok {
				url = v
			} else if a == "--searxng" && j+1 < len(s.Args) {
				url = s.Args[j+1]
			}
		}
		out = append(out, SearchBackend{Server: name, URL: url})
	}
	slices.SortFunc(out, func(a, b SearchBackend) int { return strings.Compare(a.Server, b.Server) })
	return out
}
