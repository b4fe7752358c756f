package evidence

import (
	"math"
)

// BM25's parameters: the usual values (Robertson and Zaragoza's
// "Probabilistic Relevance Framework: BM25 and Beyond", and Lucene's
// defaults). k1 is how fast a term's repetitions stop adding weight; b
// how much a long passage is discounted.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// passage is one piece of a source, indexed.
type passage struct {
	src        int
	start, end int // in the source's normalised text
	headings   []string
	// tf counts each term of the passage.
	tf map[int32]int32
	// pairs holds the passage's pairs of neighbouring content terms.
	pairs map[uint64]bool
	// length counts the passage's content words.
	length int
}

// posting is one passage a term occurs in, and how often.
type posting struct {
	p, tf int32
}

// index is a BM25 index over every passage of every source.
type index struct {
	passages []passage
	vocab    map[string]int32
	postings [][]posting
	avgLen   float64
}

func newIndex() *index {
	return &index{vocab: map[string]int32{}}
}

// termID returns a term's id, adding it when add is set; -1 for a term
// the index does not hold.
func (x *index) termID(t string, add bool) int32 {
	if id, ok := x.vocab[t]; ok {
		return id
	}
	if !add {
		return -1
	}
	id := int32(len(x.postings))
	x.vocab[t] = id
	x.postings = append(x.postings, nil)
	return id
}

// add indexes text[start:end] of source src as a passage; ws are the
// words of the passage.
func (x *index) add(src, start, end int, headings []string, ws []word) {
	p := passage{src: src, start: start, end: end, headings: headings, tf: map[int32]int32{}, pairs: map[uint64]bool{}}
	prev := int32(-1)
	for _, w := range ws {
		if w.stop {
			continue
		}
		id := x.termID(w.term, true)
		p.tf[id]++
		p.length++
		if prev >= 0 {
			p.pairs[pairKey(prev, id)] = true
		}
		prev = id
	}
	n := int32(len(x.passages))
	for id, tf := range p.tf {
		x.postings[id] = append(x.postings[id], posting{p: n, tf: tf})
	}
	x.passages = append(x.passages, p)
}

// done computes the average passage length, once every passage is in.
func (x *index) done() {
	total := 0
	for _, p := range x.passages {
		total += p.length
	}
	if len(x.passages) > 0 {
		x.avgLen = float64(total) / float64(len(x.passages))
	}
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// idf is BM25's inverse document frequency, in the form that is never
// negative (as Lucene has it): a term in every passage still weighs a
// little, a term in none weighs most.
func (x *index) idf(id int32) float64 {
	df := 0
	if id >= 0 {
		df = len(x.postings[id])
	}
	n := float64(len(x.passages))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// bm25 scores every passage holding a query term for the query terms ids
// (each once; -1 for terms no passage holds).
func (x *index) bm25(ids []int32, weights []float64) map[int32]float64 {
	scores := map[int32]float64{}
	for i, id := range ids {
		if id < 0 {
			continue
		}
		for _, po := range x.postings[id] {
			p := &x.passages[po.p]
			tf := float64(po.tf)
			norm := 1 - bm25B + bm25B*float64(p.length)/x.avgLen
			scores[po.p] += weights[i] * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
	return scores
}
