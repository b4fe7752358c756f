package browser

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cache keeps loaded pages and model answers on disk for a while, so a
// re-run of a stage does not fetch or summarise the same page again.
// Entries are JSON files named by the SHA-256 of their key; a write goes
// to a temporary file first and is renamed into place, so a reader never
// sees half an entry.
type Cache struct {
	Dir string
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type cacheEntry struct {
	Key    string          `json:"key"`
	Stored time.Time       `json:"stored"`
	Value  json.RawMessage `json:"value"`
}

// DefaultCacheDir is where pages are kept when no folder is given.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("unable to find a cache folder (set --cache-dir): %w", err)
	}
	return filepath.Join(d, "icm", "pages"), nil
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.Dir, h[:2], h+".json")
}

// Get loads the value stored under key into v. It reports false when
// there is no fresh entry (missing, expired, unreadable or another key's).
func (c *Cache) Get(key string, v any) bool {
	if c == nil {
		return false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key {
		return false
	}
	if c.TTL > 0 && c.now().Sub(e.Stored) > c.TTL {
		return false
	}
	return json.Unmarshal(e.Value, v) == nil
}

// Put stores v under key.
func (c *Cache) Put(key string, v any) error {
	if c == nil {
		return nil
	}
	val, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("unable to encode cache entry: %w", err)
	}
	b, err := json.Marshal(cacheEntry{Key: key, Stored: c.now().UTC(), Value: val})
	if err != nil {
		return fmt.Errorf("unable to encode cache entry: %w", err)
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("unable to create cache folder %s: %w", filepath.Dir(p), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("unable to write cache entry in %s: %w", filepath.Dir(p), err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("unable to write cache entry %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("unable to write cache entry %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("unable to store cache entry %s: %w", p, err)
	}
	return nil
}

// Prune removes expired entries and stray temporary files.
func (c *Cache) Prune() error {
	if c == nil || c.TTL <= 0 {
		return nil
	}
	err := filepath.WalkDir(c.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".tmp-") || c.now().Sub(info.ModTime()) > c.TTL {
			os.Remove(p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// cacheKey joins the parts of a key with a separator no part contains.
func cacheKey(parts ...string) string { return strings.Join(parts, "\x00") }
