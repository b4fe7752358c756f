package browser

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/fetch"
)

// Backend loads a page. Implementations: HTTPBackend (default),
// ChromiumBackend and CamofoxBackend.
type Backend interface {
	// Name identifies the backend in cache keys and logs.
	Name() string
	// Load reads the page at url. Errors from the safety policy
	// (*fetch.BlockedError, *fetch.URLError...) come back as they are.
	Load(ctx context.Context, url string) (*Page, error)
}

// HTTPBackend reads pages with a plain HTTP fetch: no scripts run, which
// is enough for most documentation, articles and reference pages.
type HTTPBackend struct {
	Fetcher *fetch.Fetcher
}

// Name returns "http".
func (b *HTTPBackend) Name() string { return "http" }

// Load fetches url and reduces it to a Page.
func (b *HTTPBackend) Load(ctx context.Context, url string) (*Page, error) {
	resp, err := b.Fetcher.Fetch(ctx, url)
	if err != nil {
		return nil, err
	}
	p, err := PageFromBody(resp.URL, resp.Body, resp.ContentType)
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", url, err)
	}
	return p, nil
}

// Loader loads pages through a Backend and the Cache.
type Loader struct {
	Backend Backend
	Cache   *Cache
}

// Load returns the page at url, from the cache when fresh.
func (l *Loader) Load(ctx context.Context, url string) (*Page, error) {
	key := cacheKey("page", l.Backend.Name(), url)
	var p Page
	if l.Cache.Get(key, &p) {
		return &p, nil
	}
	pp, err := l.Backend.Load(ctx, url)
	if err != nil {
		return nil, err
	}
	// A cache that cannot be written only costs a re-fetch later.
	_ = l.Cache.Put(key, pp)
	return pp, nil
}
