package stagetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// CacheDir is where replayed replies live, under the workspace root.
var CacheDir = filepath.Join(workspace.HistoryDir, "tests", "cache")

// cacheStore is the replies on disk, one JSON file per key, in dir of
// the workspace, read and written through its Root (disk): a history/
// that links out of the workspace holds no cache.
type cacheStore struct {
	disk *workspace.Root
	dir  string
}

type cacheEntry struct {
	Key      string            `json:"key"`
	Model    string            `json:"model"`
	Stored   time.Time         `json:"stored"`
	Response *llm.ChatResponse `json:"response"`
}

func (s *cacheStore) path(key string) string { return filepath.Join(s.dir, key[:2], key+".json") }

func (s *cacheStore) get(key string) (*llm.ChatResponse, bool) {
	data, err := s.disk.ReadFile(s.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key || e.Response == nil {
		return nil, false // a damaged entry is a miss, and is written again
	}
	return e.Response, true
}

func (s *cacheStore) put(key string, resp *llm.ChatResponse, now time.Time) error {
	data, err := json.Marshal(cacheEntry{Key: key, Model: resp.Model, Stored: now, Response: resp})
	if err != nil {
		return err
	}
	// A cached reply can be asked for again: no syncs.
	return s.disk.WriteCheckpoint(s.path(key), data, 0o644)
}

// RequestKey is the cache key of a model request: a hash of everything
// that shapes the answer (model, messages, tools, format, think and the
// sampling options, seed included). Callbacks and the stage label do not
// count.
func RequestKey(req llm.ChatRequest) string {
	data, _ := json.Marshal(struct {
		Model    string          `json:"model"`
		Messages []llm.Message   `json:"messages"`
		Tools    []llm.Tool      `json:"tools"`
		Format   json.RawMessage `json:"format,omitempty"`
		Think    *bool           `json:"think,omitempty"`
		Options  llm.Options     `json:"options"`
	}{req.Model, req.Messages, req.Tools, req.Format, req.Think, req.Options})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// cachingClient answers a request from the store when an identical one
// was answered before, and stores what the server answers otherwise. One
// is made per job, so each job's hits are counted apart.
type cachingClient struct {
	inner llm.Client
	store *cacheStore
	now   func() time.Time

	mu    sync.Mutex
	stats report.CacheStats
}

func (c *cachingClient) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	key := RequestKey(req)
	if resp, ok := c.store.get(key); ok {
		c.note(key, true)
		if req.OnDelta != nil {
			req.OnDelta(llm.Delta{Content: resp.Message.Content, Thinking: resp.Message.Thinking})
		}
		out := *resp
		out.Attempts = 0
		return &out, nil
	}
	resp, err := c.inner.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	c.note(key, false)
	if err := c.store.put(key, resp, c.now()); err != nil {
		return nil, fmt.Errorf("unable to store the reply in the test cache: %w", err)
	}
	return resp, nil
}

func (c *cachingClient) note(key string, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit {
		c.stats.Hits++
	} else {
		c.stats.Misses++
	}
	c.stats.Keys = append(c.stats.Keys, report.CacheKey{Key: key, Hit: hit})
}

func (c *cachingClient) snapshot() *report.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Keys = append([]report.CacheKey(nil), s.Keys...)
	return &s
}

func (c *cachingClient) Show(ctx context.Context, model string) (*llm.ModelInfo, error) {
	return c.inner.Show(ctx, model)
}

func (c *cachingClient) Pull(ctx context.Context, model string, progress func(llm.PullProgress)) error {
	return c.inner.Pull(ctx, model, progress)
}

// ClearCache removes a workspace's stored replies, through its Root: a
// link out of the workspace on the way is refused, never followed.
func ClearCache(disk *workspace.Root) error {
	err := disk.RemoveAll(filepath.Join(disk.Dir(), CacheDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unable to clear the test cache: %w", err)
	}
	return nil
}
