package browser

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

func newChromium(t *testing.T, site *sites.Site) *ChromiumBackend {
	t.Helper()
	if !chromiumAvailable("") {
		need.Missing(t, "chromium", "neither chromium nor chromium-browser is on PATH; install the Debian package chromium (.ci/run does)")
	}
	b := &ChromiumBackend{Fetcher: newFetcher(t, site.Host())}
	t.Cleanup(func() { b.Close() })
	return b
}

func pageTargets(t *testing.T, b *ChromiumBackend) int {
	t.Helper()
	targets, err := chromedp.Targets(b.browser)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tg := range targets {
		if tg.Type == "page" {
			n++
		}
	}
	return n
}

func TestChromiumRendersScriptPage(t *testing.T) {
	site := sites.New(t)
	b := newChromium(t, site)
	p, err := b.Load(t.Context(), site.Page(sites.PathScript))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Markdown, sites.ScriptText) {
		t.Fatalf("rendered text lacks the script's output:\n%s", p.Markdown)
	}
	if len(p.Links) != 1 || p.Links[0].URL != site.Page(sites.PathLong) {
		t.Fatalf("links = %+v", p.Links)
	}
	before := pageTargets(t, b)
	if _, err := b.Load(t.Context(), site.Page(sites.PathNested)); err != nil {
		t.Fatal(err)
	}
	if after := pageTargets(t, b); after != before {
		t.Fatalf("%d page targets after a load, %d before: a tab was left open", after, before)
	}
}

func TestChromiumKeepsThePolicy(t *testing.T) {
	site := sites.New(t)
	other := sites.New(t) // not on the allow-list
	b := newChromium(t, site)

	t.Run("blocked address", func(t *testing.T) {
		_, err := b.Load(t.Context(), other.Page(sites.PathLong))
		var be *fetch.BlockedError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want *BlockedError", err)
		}
	})
	t.Run("redirect to a blocked address", func(t *testing.T) {
		to := other.Page(sites.PathLong)
		_, err := b.Load(t.Context(), site.Page(sites.PathRedirect)+"?to="+url.QueryEscape(to))
		var be *fetch.BlockedError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want *BlockedError", err)
		}
	})
	t.Run("page scripts reaching a blocked address", func(t *testing.T) {
		to := other.Page("/secret")
		p, err := b.Load(t.Context(), site.Page(sites.PathBeacon)+"?to="+url.QueryEscape(to))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Markdown, sites.BeaconText) {
			t.Fatalf("page text = %q", p.Markdown)
		}
		if b.proxy.Blocked("127.0.0.1") == nil {
			t.Fatalf("the page's requests never reached the proxy")
		}
	})
	if n := other.Total(); n != 0 {
		t.Fatalf("the site not on the allow-list logged %d requests", n)
	}
}

// chromiumAvailable reports whether a browser binary can be found, for the
// tests that need one.
func chromiumAvailable(path string) bool {
	p, err := ChromiumPath(path)
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
