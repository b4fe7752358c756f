package browser

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Cache{Dir: t.TempDir(), TTL: time.Hour, Now: func() time.Time { return now }}
	if err := c.Put("k", Page{URL: "u", Markdown: "m"}); err != nil {
		t.Fatal(err)
	}
	var p Page
	if !c.Get("k", &p) || p.Markdown != "m" {
		t.Fatalf("fresh entry not read: %+v", p)
	}
	if c.Get("other", &p) {
		t.Fatalf("missing key found")
	}
	now = now.Add(2 * time.Hour)
	if c.Get("k", &p) {
		t.Fatalf("expired entry read")
	}
	// A corrupt entry is a miss, not an error.
	if err := os.WriteFile(c.path("k"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c.Get("k", &p) {
		t.Fatalf("corrupt entry read")
	}
	var nilCache *Cache
	if nilCache.Get("k", &p) || nilCache.Put("k", p) != nil {
		t.Fatalf("a nil cache must be a no-op")
	}
	stray := filepath.Join(filepath.Dir(c.path("k")), ".tmp-123")
	os.WriteFile(stray, nil, 0o600)
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("stray temp file kept")
	}
}
