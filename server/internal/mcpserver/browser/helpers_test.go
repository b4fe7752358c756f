package browser

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

// loopbackOnly keeps every test connection on this machine, whatever the
// policy under test allows.
func loopbackOnly(ap netip.AddrPort) error {
	if !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("test guard: %s is not loopback", ap)
	}
	return nil
}

func newFetcher(t testing.TB, allow ...string) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(fetch.Options{Allow: allow, Guard: loopbackOnly})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// httpLoader reads the fixture site over plain HTTP, allowed by the
// allow-list the way --allow-host does it.
func httpLoader(t testing.TB, site *sites.Site, cache *Cache) *Loader {
	return &Loader{Backend: &HTTPBackend{Fetcher: newFetcher(t, site.Host())}, Cache: cache}
}

func newModel(t testing.TB, cfg ollamatest.Config) (*ollamatest.Server, llm.Client) {
	t.Helper()
	srv := ollamatest.New(t, cfg)
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithGetenv(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

var markerRE = regexp.MustCompile(`marker-\d+-\d+`)

// scriptNotes makes the scripted model answer a map call with the markers
// of its part, and a reduce call with a line naming every marker it got.
func scriptNotes(srv *ollamatest.Server) {
	srv.On(ollamatest.SystemContains("You take notes on one part")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		return ollamatest.Text("Notes: " + strings.Join(markerRE.FindAllString(r.LastUser(), -1), " "))
	})
	srv.On(ollamatest.SystemContains("You write one answer from notes")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		return ollamatest.Text("Summary of " + strings.Join(unique(markerRE.FindAllString(r.LastUser(), -1)), " "))
	})
	srv.On(ollamatest.SystemContains("You summarise a web page")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		return ollamatest.Text("Whole-page summary.")
	})
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func allMarkers() []string {
	var out []string
	for s := 0; s < sites.LongSections; s++ {
		for p := 0; p < sites.LongParagraphs; p++ {
			out = append(out, sites.Marker(s, p))
		}
	}
	return out
}

// publicResolver answers every name with a public documentation-free
// address, for backends (camofox) that only precheck the URL and never
// connect to it themselves.
type publicResolver struct{}

func (publicResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}
