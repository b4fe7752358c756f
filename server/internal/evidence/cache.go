package evidence

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"sort"
	"sync"
)

// Cache keeps the evidence of the outputs computed last, so that asking
// again for an output nobody changed, against the same sources and with
// the same options, costs a lookup. It holds at most a fixed number of
// results and forgets the one used least recently. It is safe for
// concurrent use; the engine may persist results by Key later.
type Cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *entry, most recently used first
	byKey map[string]*list.Element
	// vecs are the embedding model's vectors by text, kept across results.
	vecs *vectors
}

type entry struct {
	key string
	res *Result
}

// NewCache returns a cache of at most n results (at least 1).
func NewCache(n int) *Cache {
	return &Cache{max: max(1, n), order: list.New(), byKey: map[string]*list.Element{}, vecs: newVectors()}
}

// Compute returns the evidence for in, from the cache when it holds it
// (the result then has Cached set). Results are shared: do not change
// them. A partial result, or one whose embedding model failed, is not
// kept: another try may do better. The embedding model's vectors are
// kept by text, so that a result worked out again (an edited output)
// embeds only the text that changed.
func (c *Cache) Compute(ctx context.Context, in Input, opt Options) *Result {
	key := Key(in, opt)
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		res := *el.Value.(*entry).res
		c.mu.Unlock()
		res.Cached = true
		return &res
	}
	c.mu.Unlock()
	if opt.Embedder != nil {
		opt.Embedder = cachedEmbedder{Embedder: opt.Embedder, vecs: c.vecs}
	}
	res, keep := compute(ctx, in, opt)
	if !keep || res.Partial {
		return res
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		return res
	}
	c.byKey[key] = c.order.PushFront(&entry{key: key, res: res})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry).key)
	}
	return res
}

// Len returns how many results the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Key identifies a computation: the output's hash, the sources' hash and
// the options that change a result (not the time bound, which changes
// only whether it is partial, and partial results are not kept).
func Key(in Input, opt Options) string {
	opt = opt.withDefaults()
	h := sha256.New()
	field(h, []byte("evidence 2"))
	field(h, []byte(in.Path))
	field(h, in.Text)
	for _, s := range in.Sources {
		for _, f := range []string{string(s.Kind), s.Name, s.URL, s.Tool, s.CallID, s.Args} {
			field(h, []byte(f))
		}
		field(h, s.Text)
	}
	read := append([]string(nil), in.ReadURLs...)
	sort.Strings(read)
	for _, u := range read {
		field(h, []byte(u))
	}
	model := ""
	if opt.Embedder != nil {
		model = opt.Embedder.Model()
	}
	field(h, []byte(model))
	for _, v := range []float64{opt.Threshold, opt.SemanticThreshold} {
		number(h, math.Float64bits(v))
	}
	for _, v := range []int{opt.Support, opt.MaxUnits, opt.MaxPassages, opt.MaxOutputBytes, opt.MaxSourceBytes, opt.MaxEmbedTexts} {
		number(h, uint64(v))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// field writes b with its length first, so that no two lists of fields
// write the same bytes.
func field(h hash.Hash, b []byte) {
	number(h, uint64(len(b)))
	h.Write(b)
}

func number(h hash.Hash, v uint64) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], v)
	h.Write(n[:])
}
