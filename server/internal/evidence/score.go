package evidence

import (
	"sort"
)

// query is a sentence's (or a unit's) words as the index knows them.
type query struct {
	// ids are the content terms, each once (-1: in no passage).
	ids []int32
	// idf weighs each of ids; total is their sum, known the sum of those
	// some passage holds.
	idf          []float64
	total, known float64
	// pairs are the pairs of neighbouring content terms the index knows
	// both terms of; allPairs counts every pair.
	pairs    []uint64
	allPairs int
}

// query turns words into a query.
func (x *index) query(ws []word) query {
	var q query
	seen := map[string]bool{}
	prev := int32(-2)
	for _, w := range ws {
		if w.stop {
			continue
		}
		id := x.termID(w.term, false)
		if !seen[w.term] {
			seen[w.term] = true
			f := x.idf(id)
			q.ids = append(q.ids, id)
			q.idf = append(q.idf, f)
			q.total += f
			if id >= 0 {
				q.known += f
			}
		}
		if prev != -2 {
			q.allPairs++
			if prev >= 0 && id >= 0 {
				q.pairs = append(q.pairs, pairKey(prev, id))
			}
		}
		prev = id
	}
	return q
}

// unknownCap is how many rare words' weight the words of a unit that no
// source uses count against it, at most (chosen on the tune half of the
// quality set, see doc.go).
const unknownCap = 4

// unknownWeight is what a unit's words that no source uses (weighing
// unknown in all) count against its support. They may be a paraphrase's
// own words, so they do not count in full; but a unit that shares one or
// two names with the sources and says the rest in words no source uses
// is not supported by those names: up to unknownCap rare words' weight,
// they count.
func (x *index) unknownWeight(unknown float64) float64 {
	return min(unknown, unknownCap*x.idf(-1))
}

// best returns the passage BM25 ranks first for q, or -1.
func (x *index) best(q query) int32 {
	best, bestScore := int32(-1), 0.0
	for p, s := range x.bm25(q.ids, q.idf) {
		if s > bestScore || (s == bestScore && p < best) {
			best, bestScore = p, s
		}
	}
	return best
}

// match is a passage's part in a unit's support.
type match struct {
	p int32
	// cover is the share of the unit's known term weight the passage
	// holds for the sentences it is best for; pairs the share of the
	// unit's neighbouring pairs it holds for them.
	cover, pairs float64
	score        float64
	// semantic is the passage's cosine similarity with the unit, when an
	// embedding model gave one.
	semantic *float64
}

// support scores a unit, given as its sentences' words: each sentence
// finds its best passage by BM25; the unit's lexical score is the share
// of its known term weight those passages hold (with unknownWeight added
// to what they must hold), or the share of its neighbouring pairs they
// hold when that is higher (a copy). It returns the passages, best
// first, at most n.
func (x *index) support(sentences [][]word, n int) (float64, []match) {
	var known, found, total float64
	var pairs, allPairs int
	byPassage := map[int32]*match{}
	var order []int32
	for _, ws := range sentences {
		q := x.query(ws)
		known += q.known
		total += q.total
		allPairs += q.allPairs
		p := x.best(q)
		if p < 0 {
			continue
		}
		m := byPassage[p]
		if m == nil {
			m = &match{p: p}
			byPassage[p] = m
			order = append(order, p)
		}
		f, pf := x.holds(q, p)
		found += f
		pairs += pf
		m.cover += f
		m.pairs += float64(pf)
	}
	denom := known + x.unknownWeight(total-known)
	score := found / denom
	if allPairs > 0 {
		score = max(score, float64(pairs)/float64(allPairs))
	}
	ms := make([]match, 0, len(order))
	for _, p := range order {
		m := *byPassage[p]
		m.cover /= denom
		if allPairs > 0 {
			m.pairs /= float64(allPairs)
		}
		m.score = max(m.cover, m.pairs)
		ms = append(ms, m)
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].score > ms[j].score })
	return score, ms[:min(len(ms), n)]
}

// holds returns the term weight and the pairs of q that passage p holds.
func (x *index) holds(q query, p int32) (float64, int) {
	ps := &x.passages[p]
	var f float64
	for i, id := range q.ids {
		if id >= 0 && ps.tf[id] > 0 {
			f += q.idf[i]
		}
	}
	n := 0
	for _, k := range q.pairs {
		if ps.pairs[k] {
			n++
		}
	}
	return f, n
}

// ranked returns the passages BM25 ranks best for q, at most n: the
// candidates of a unit's semantic score.
func (x *index) ranked(q query, n int) []int32 {
	scores := x.bm25(q.ids, q.idf)
	out := make([]int32, 0, len(scores))
	for p := range scores {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if scores[out[i]] != scores[out[j]] {
			return scores[out[i]] > scores[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(len(out), n)]
}

// semanticCandidates is how many of the passages best by BM25 are a
// unit's candidates for the semantic score, when not every passage can
// be embedded.
const semanticCandidates = 10
