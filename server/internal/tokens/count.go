package tokens

import "fmt"

// Method says how a count was made, from most to least exact.
type Method string

// The methods a count can have.
const (
	// Exact: the model's own tokenizer and chat template, as the server
	// will render and tokenize the request.
	Exact Method = "exact"
	// Server: the model server's /tokenize endpoint.
	Server Method = "server"
	// Calibrated: the estimate scaled by the ratio of real to estimated
	// counts in past runs with the model.
	Calibrated Method = "calibrated"
	// Estimated: the heuristic estimate.
	Estimated Method = "estimated"
)

// Count is a token count and how it was made.
type Count struct {
	Tokens int    `json:"tokens"`
	Method Method `json:"method"`
	// Tokenizer names the tokenizer of an exact count
	// ("BPE qwen2, 151669 tokens").
	Tokenizer string `json:"tokenizer,omitempty"`
	// Runs is the number of past runs a calibrated count's ratio is from.
	Runs int `json:"runs,omitempty"`
	// Ratio is the real-to-estimated ratio a calibrated count applied.
	Ratio float64 `json:"ratio,omitempty"`
}

// Label says how the count was made, in the words every report uses:
// "exact (model tokenizer)", "server /tokenize", "calibrated from 3 runs",
// "estimated".
func (c Count) Label() string {
	switch c.Method {
	case Exact:
		return "exact (model tokenizer)"
	case Server:
		return "server /tokenize"
	case Calibrated:
		if c.Runs == 1 {
			return "calibrated from 1 run"
		}
		return fmt.Sprintf("calibrated from %d runs", c.Runs)
	}
	return "estimated"
}

// Describe is the label with the tokenizer of an exact count: "exact
// (model tokenizer: BPE qwen2, 151669 tokens)", else Label.
func (c Count) Describe() string {
	if c.Method == Exact && c.Tokenizer != "" {
		return "exact (model tokenizer: " + c.Tokenizer + ")"
	}
	return c.Label()
}

// Known reports whether the count is the server's own (exact or from its
// /tokenize): no margin for error is needed.
func (c Count) Known() bool { return c.Method == Exact || c.Method == Server }

// Add sums two counts of parts of one thing; the sum is only as good as
// the worse of the two methods.
func (c Count) Add(o Count) Count {
	if c.Method == "" {
		return o
	}
	sum := c
	sum.Tokens += o.Tokens
	if rank(o.Method) > rank(c.Method) {
		sum.Method, sum.Tokenizer, sum.Runs, sum.Ratio = o.Method, o.Tokenizer, o.Runs, o.Ratio
	}
	return sum
}

func rank(m Method) int {
	switch m {
	case Exact:
		return 0
	case Server:
		return 1
	case Calibrated:
		return 2
	}
	return 3
}

// MinAnswerRoom is the least room for an answer, in tokens, that makes a
// model call worth making: the model client refuses a prompt that leaves
// less before the call, and the checks say beforehand that a context
// will not fit.
const MinAnswerRoom = 256

// EstimateMargin is the heuristic estimator's error on prose, as a share
// of its count: the real count of a text estimated at n tokens lies
// within n × (1 ± EstimateMargin) (see package doc). A prompt is known
// to be over a window by an estimate only beyond it.
const EstimateMargin = 0.15

// SurelyOver reports whether an estimate of n tokens, plus room for the
// answer, is over window beyond the estimate's error: the least the
// real count can be does not fit. A count the server agrees with needs no
// margin: pass exact.
func SurelyOver(n, room, window int, exact bool) bool {
	if window <= 0 {
		return false
	}
	least := n
	if !exact {
		least = int(float64(n) * (1 - EstimateMargin))
	}
	return least+room > window
}
