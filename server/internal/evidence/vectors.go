package evidence

import (
	"context"
	"crypto/sha256"
	"sync"
)

// maxVectors bounds the vectors a Cache keeps: a few reviews' worth of
// MaxEmbedTexts (a 768-dimension vector is 3 KiB).
const maxVectors = 4 * DefaultMaxEmbedTexts

// vectors keeps embedding vectors by model and text hash, so that a
// re-review embeds only the text that changed. It keeps two generations
// of at most maxVectors/2 each: when the newer fills, the older is
// dropped, and a vector found in the older is moved to the newer; what
// was used lately stays, within a fixed bound.
type vectors struct {
	mu        sync.Mutex
	new, prev map[[sha256.Size]byte][]float32
}

func newVectors() *vectors {
	return &vectors{new: map[[sha256.Size]byte][]float32{}}
}

func vectorKey(model, text string) [sha256.Size]byte {
	return sha256.Sum256([]byte(model + "\x00" + text))
}

func (v *vectors) get(k [sha256.Size]byte) ([]float32, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if vec, ok := v.new[k]; ok {
		return vec, true
	}
	vec, ok := v.prev[k]
	if ok {
		v.putLocked(k, vec)
	}
	return vec, ok
}

func (v *vectors) put(k [sha256.Size]byte, vec []float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.putLocked(k, vec)
}

func (v *vectors) putLocked(k [sha256.Size]byte, vec []float32) {
	if len(v.new) >= maxVectors/2 {
		v.prev, v.new = v.new, map[[sha256.Size]byte][]float32{}
	}
	v.new[k] = vec
}

// cachedEmbedder asks its Embedder only for the texts whose vectors the
// cache lacks, and keeps what comes back, batch by batch: a model that
// fails halfway leaves the batches it answered for the next try.
type cachedEmbedder struct {
	Embedder
	vecs *vectors
}

// Embed returns the cached vectors and asks for the others in one call.
func (e cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	model := e.Model()
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		if vec, ok := e.vecs.get(vectorKey(model, t)); ok {
			out[i] = vec
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := e.Embedder.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(got) != len(missing) {
		return got, nil // embed reports the count that does not match
	}
	for j, i := range at {
		out[i] = got[j]
		e.vecs.put(vectorKey(model, missing[j]), got[j])
	}
	return out, nil
}
