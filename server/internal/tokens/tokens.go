// Package tokens estimates how many tokens a text costs a model.
//
// No tokenizer vocabulary ships with icm, so this package's counts are
// estimates (exact counts come from a local model's own tokenizer, package
// ollamamodel, or a server's /tokenize, through package promptcount). The
// default estimator walks the text once and charges each run of characters
// roughly what a modern byte-pair vocabulary (Llama 3, Qwen, Mistral) charges:
// an English word of up to ten letters is one token (large vocabularies hold
// whole common words), longer words one token per ten letters,
// every punctuation mark one token, digits in groups of three, a run of
// whitespace nothing beyond the word it precedes (most vocabularies fold a
// leading space into the word), a run of line breaks one token, and other
// scripts about one token per character for CJK and one per three bytes
// elsewhere. See Estimate for the expected error.
package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Estimator counts tokens in a text.
type Estimator interface {
	// Count returns the estimated number of tokens in text.
	Count(text string) int
	// Name names the method, for reports ("bpe-heuristic", "bytes").
	Name() string
}

// Default is the estimator used when a model family has no better one.
var Default Estimator = heuristic{}

// Bytes counts one token per byte: exact for byte-level vocabularies.
var Bytes Estimator = bytesEstimator{}

// Estimate counts tokens with the default estimator. On English prose and
// Markdown it is meant to land within about 15% of a BPE tokenizer's count
// (it errs high on long rare words and low on code with many symbols).
func Estimate(text string) int { return Default.Count(text) }

// ForFamily returns the estimator for a model family as Ollama reports it
// in /api/show (details.family). Families whose tokenizer is byte-level get
// Bytes; the rest get the default heuristic.
func ForFamily(family string, byteLevel bool) Estimator {
	if byteLevel {
		return Bytes
	}
	return Default
}

type bytesEstimator struct{}

func (bytesEstimator) Count(text string) int { return len(text) }
func (bytesEstimator) Name() string          { return "bytes" }

type heuristic struct{}

func (heuristic) Name() string { return "bpe-heuristic" }

func (heuristic) Count(text string) int {
	n := 0
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\n' || c == '\r':
			for i < len(text) && (text[i] == '\n' || text[i] == '\r') {
				i++
			}
			n++
		case c == ' ' || c == '\t':
			// A single space is folded into the next word; longer runs
			// (indentation) cost about one token per four columns.
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if run := j - i; run > 1 {
				n += (run + 3) / 4
			}
			i = j
		case isASCIILetter(c):
			j := i
			for j < len(text) && isASCIILetter(text[j]) {
				j++
			}
			n += (j - i + 9) / 10
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			j := i
			cjk := 0
			for j < len(text) && text[j] >= utf8.RuneSelf {
				r, size := utf8.DecodeRuneInString(text[j:])
				if isCJK(r) {
					cjk++
				}
				j += size
			}
			other := j - i - 3*cjk
			if other < 0 {
				other = 0
			}
			n += cjk + (other+2)/3
			i = j
		}
	}
	return n
}

func isASCIILetter(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
