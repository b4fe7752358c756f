package realollama

import (
	"math"
	"math/rand/v2"
)

// How the weights make a model that ends its answers by itself.
//
// Random weights almost never pick the end-of-turn token, so every answer
// would run to num_predict. Instead every token's embedding carries the
// same strong value on dimension 0 (strongValue) next to a small random
// part of fixed length (otherNorm). After RMSNorm dimension 0 is therefore
// nearly the same for every token, and the output row of the end-of-turn
// token reads only that dimension: its logit is almost constant, and its
// weight is calibrated (endWeight) so it wins with the wanted chance. The
// rows of writable tokens (printable text) ignore dimension 0 and read the
// random part, so the answer is varied text; the rows of other tokens and
// of the remaining special tokens read dimension 0 with a large negative
// weight, so they are never chosen and answers stay valid UTF-8. Attention and feed-forward add
// only small terms (residualStd) and hardly move any of this.
const (
	strongValue  = 1.0
	otherNorm    = 0.8
	outputStd    = 0.2
	forbidWeight = -4.0
	inputStd     = 0.1
	residualStd  = 0.005
)

// embeddings returns one row per token: strongValue on dimension 0 and a
// random direction of length otherNorm on the rest.
func embeddings(rng *rand.Rand, d design) [][]float32 {
	rows := make([][]float32, d.v.size())
	rest := make([]float64, d.width-1)
	for t := range rows {
		row := make([]float32, d.width)
		row[0] = strongValue
		var sum float64
		for i := range rest {
			rest[i] = rng.NormFloat64()
			sum += rest[i] * rest[i]
		}
		scale := otherNorm / math.Sqrt(sum)
		for i, v := range rest {
			row[i+1] = float32(v * scale)
		}
		rows[t] = row
	}
	return rows
}

// outputRows returns the output projection, one row per token, with the
// end-of-turn row's weight calibrated to endChance.
func outputRows(rng *rand.Rand, d design, embd [][]float32, endChance float64) [][]float32 {
	rows := make([][]float32, d.v.size())
	for t := range rows {
		row := make([]float32, d.width)
		switch {
		case d.v.writable[t]:
			for i := 1; i < d.width; i++ {
				row[i] = float32(rng.NormFloat64() * outputStd)
			}
		case t == d.v.turnEnd:
			// set below, once the other rows are known
		default:
			row[0] = forbidWeight
		}
		rows[t] = row
	}
	rows[d.v.turnEnd][0] = float32(endWeight(d, embd, rows, endChance))
	return rows
}

// calibrationContexts bounds how many writable tokens the end-of-turn
// calibration averages over: every one for the byte vocabulary, an even
// spread of them for a real one (each costs a pass over the vocabulary).
const calibrationContexts = 512

// endWeight finds, by bisection, the end-of-turn row's weight on
// dimension 0 at which the chance of ending after a writable token,
// averaged over (an even spread of) those tokens, is endChance. It ignores the small
// attention and feed-forward terms. Only the end-of-turn logit depends on
// the weight, so the rest of each softmax is computed once.
func endWeight(d design, embd, out [][]float32, endChance float64) float64 {
	type context struct{ h0, others float64 }
	var contexts []context
	for _, t := range sampleIDs(d.v.writable, calibrationContexts) {
		h := rmsNorm(embd[t])
		l := logits(h, out)
		var others float64
		for tok, v := range l {
			if tok != d.v.turnEnd {
				others += math.Exp(v)
			}
		}
		contexts = append(contexts, context{h0: h[0], others: others})
	}
	chance := func(w float64) float64 {
		var total float64
		for _, c := range contexts {
			e := math.Exp(w * c.h0)
			total += e / (e + c.others)
		}
		return total / float64(len(contexts))
	}
	lo, hi := -10.0, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if chance(mid) < endChance {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// meanEndChance is the end-of-turn token's softmax probability after each
// writable token the calibration reads, averaged, with the model reduced
// to embedding, final RMSNorm and output projection.
func meanEndChance(d design, embd, out [][]float32) float64 {
	var total float64
	ids := sampleIDs(d.v.writable, calibrationContexts)
	for _, t := range ids {
		total += softmaxAt(logits(rmsNorm(embd[t]), out), d.v.turnEnd)
	}
	return total / float64(len(ids))
}

func logits(h []float64, out [][]float32) []float64 {
	l := make([]float64, len(out))
	for t, row := range out {
		for i, w := range row {
			l[t] += float64(w) * h[i]
		}
	}
	return l
}

func softmaxAt(l []float64, at int) float64 {
	peak := math.Inf(-1)
	for _, v := range l {
		peak = max(peak, v)
	}
	var sum float64
	for _, v := range l {
		sum += math.Exp(v - peak)
	}
	return math.Exp(l[at]-peak) / sum
}
