package evidence

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// Embedder turns texts into vectors, one per text in order: the
// embeddings endpoint of the model server, with the model the person
// named. Evidence uses it, when given, for a semantic score beside the
// lexical one; this package makes no network call of its own.
type Embedder interface {
	// Model names the embedding model (part of the cache key).
	Model() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// cosine returns the cosine similarity of a and b, clipped to 0..1 (a
// negative similarity supports nothing); 0 when either is empty or their
// lengths differ.
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return math.Max(0, math.Min(1, dot/math.Sqrt(na*nb)))
}

// embedBatch is how many texts go to the embedding model in one call.
const embedBatch = 64

// semantic adds the embedding model's score to each unit the lexical
// score leaves unsupported: the best cosine similarity between the unit
// and its candidate passages (every passage when all fit in the bound on
// texts embedded, else the passages best by BM25 for each unit). The
// unit's score is the better of the two.
func (c *computation) semantic(ctx context.Context) error {
	var units []*unitWork
	for _, u := range c.units {
		if u.unit.Status == Unsupported && u.unit.Lexical < c.opt.Threshold {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return nil
	}
	if most := max(1, c.opt.MaxEmbedTexts/2); len(units) > most {
		c.limit("%d units have a semantic score, the rest a lexical one only (bound: %d texts embedded)", most, c.opt.MaxEmbedTexts)
		units = units[:most]
	}
	budget := c.opt.MaxEmbedTexts - len(units)
	all := len(c.idx.passages) <= budget
	slot := map[int32]int{} // passage -> its place among the texts embedded
	var order []int32
	if all {
		for p := range c.idx.passages {
			slot[int32(p)] = len(order)
			order = append(order, int32(p))
		}
	} else {
		// Each unit's best passages first, then each one's second best, ...
		for r := 0; r < semanticCandidates && len(order) < budget; r++ {
			for _, u := range units {
				if r < len(u.ranked) && len(order) < budget {
					if _, ok := slot[u.ranked[r]]; !ok {
						slot[u.ranked[r]] = len(order)
						order = append(order, u.ranked[r])
					}
				}
			}
		}
	}
	texts := make([]string, 0, len(units)+len(order))
	for _, u := range units {
		texts = append(texts, string(c.out.norm[u.start:u.end]))
	}
	for _, p := range order {
		ps := c.idx.passages[p]
		texts = append(texts, string(c.sources[ps.src].text.norm[ps.start:ps.end]))
	}
	vecs, err := embed(ctx, c.opt.Embedder, texts)
	if err != nil {
		return err
	}
	for i, u := range units {
		cands := u.ranked
		if all {
			cands = order
		}
		best, bestP := -1.0, int32(-1)
		cos := map[int32]float64{}
		for _, p := range cands {
			if s, ok := slot[p]; ok {
				v := cosine(vecs[i], vecs[len(units)+s])
				cos[p] = v
				if v > best {
					best, bestP = v, p
				}
			}
		}
		if bestP < 0 {
			best = 0
		}
		u.unit.Semantic = &best
		u.unit.Score = max(u.unit.Lexical, c.lexicalScale(best))
		u.matches = c.withSemantic(u, cos, bestP)
	}
	return nil
}

// lexicalScale puts a cosine similarity at the lexical score's scale:
// the semantic threshold maps to the lexical one.
func (c *computation) lexicalScale(cos float64) float64 {
	return min(1, cos*c.opt.Threshold/c.opt.SemanticThreshold)
}

// withSemantic gives each listed passage the better of its score and
// its similarity, and lists the passage most similar to the unit if it
// was not listed.
func (c *computation) withSemantic(u *unitWork, cos map[int32]float64, bestP int32) []match {
	ms := u.matches
	listed := false
	for _, m := range ms {
		listed = listed || m.p == bestP
	}
	if !listed && bestP >= 0 {
		f, _ := c.idx.holds(u.q, bestP)
		m := match{p: bestP, cover: f / (u.q.known + c.idx.unknownWeight(u.q.total-u.q.known))}
		m.score = m.cover
		ms = append(ms, m)
	}
	for i := range ms {
		v, ok := cos[ms[i].p]
		if !ok {
			continue
		}
		ms[i].semantic = &v
		ms[i].score = max(ms[i].score, c.lexicalScale(v))
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].score > ms[j].score })
	return ms[:min(len(ms), c.opt.Support)]
}

// embed sends texts to the model in batches and checks what comes back.
func embed(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for from := 0; from < len(texts); from += embedBatch {
		batch := texts[from:min(len(texts), from+embedBatch)]
		vs, err := e.Embed(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(batch) {
			return nil, fmt.Errorf("the model returned %d vectors for %d texts", len(vs), len(batch))
		}
		out = append(out, vs...)
	}
	return out, nil
}
