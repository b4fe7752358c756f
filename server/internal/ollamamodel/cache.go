package ollamamodel

import (
	"context"
	"slices"
	"sync"
)

// cacheSize bounds the loaded models kept: a real vocabulary with its
// merges and lookup maps takes tens of megabytes.
const cacheSize = 3

// Cache loads each model once per manifest digest and keeps the last few.
// Looking a model up reads its manifest each time (a small file), so a
// new pull or create under the same name is noticed at once. Concurrent
// first lookups of one digest share one load. It is safe for concurrent use.
type Cache struct {
	dirs []string

	mu      sync.Mutex
	entries map[string]*cacheEntry
	recent  []string // digests, most recently used last
}

type cacheEntry struct {
	done  chan struct{}
	model *Model
	err   error
}

// NewCache returns a cache that finds models in dirs (see ModelsDirs).
func NewCache(dirs []string) *Cache {
	return &Cache{dirs: slices.Clone(dirs), entries: map[string]*cacheEntry{}}
}

// Dirs are the folders the cache looks in.
func (c *Cache) Dirs() []string { return slices.Clone(c.dirs) }

// Model returns the loaded model for name. ErrNotFound means the model's
// files are not on this machine; ErrNotCovered that its tokenizer is not
// replicated (remembered for the digest, since the files cannot change
// under it). ctx bounds the wait for a load another caller started.
func (c *Cache) Model(ctx context.Context, name string) (*Model, error) {
	f, err := Find(c.dirs, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e, ok := c.entries[f.Digest]
	if !ok {
		e = &cacheEntry{done: make(chan struct{})}
		c.entries[f.Digest] = e
		go func() {
			e.model, e.err = Load(f)
			close(e.done)
		}()
	}
	c.touch(f.Digest)
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.model, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// touch marks digest as used and drops the least recently used entries
// beyond cacheSize. Called with mu held.
func (c *Cache) touch(digest string) {
	if i := slices.Index(c.recent, digest); i >= 0 {
		c.recent = slices.Delete(c.recent, i, i+1)
	}
	c.recent = append(c.recent, digest)
	for len(c.recent) > cacheSize {
		delete(c.entries, c.recent[0])
		c.recent = c.recent[1:]
	}
}
