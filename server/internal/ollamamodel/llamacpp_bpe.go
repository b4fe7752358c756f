package ollamamodel

import (
	"cmp"
	"container/heap"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/ollama/ollama/tokenizer"
)

// llamaCppBPE tokenizes a byte-pair vocabulary the way llama.cpp does, for
// models the server runs on llama.cpp. It differs from the tokenizer
// package's BPE (which Ollama's own engine runs, and which this package
// uses for those models) in one way that shows on real prompts: when two
// adjacent pairs have the same merge rank, llama.cpp merges the leftmost
// first, as byte-pair encoding is defined, while the tokenizer package's
// heap takes them in no set order. Three newlines become one token in
// llama.cpp ("ĊĊĊ") and two in the package ("Ċ", "ĊĊ"); the real server
// test caught a count two tokens apart on a prompt with a blank-line run.
// The vocabulary's lookups (tokens, merge ranks, special tokens) are the
// tokenizer package's.
type llamaCppBPE struct {
	vocab *tokenizer.Vocabulary
	// passes pre-tokenize: each splits the pieces of the one before.
	passes []*regexp2.Regexp
	// ignoreMerges: a piece that is a whole token is taken as it is
	// (llama.cpp does this for the llama3 and tekken pre-tokenizers).
	ignoreMerges bool
	// specials are the texts of control, user-defined and unknown tokens,
	// longest first, as llama.cpp partitions a prompt on them.
	specials []string
}

func newLlamaCppBPE(v *tokenizer.Vocabulary, passes []string, ignoreMerges bool) *llamaCppBPE {
	b := &llamaCppBPE{vocab: v, ignoreMerges: ignoreMerges}
	for _, p := range passes {
		b.passes = append(b.passes, regexp2.MustCompile(p, regexp2.RE2))
	}
	for i, t := range v.Types {
		if t == tokenizer.TOKEN_TYPE_CONTROL || t == tokenizer.TOKEN_TYPE_USER_DEFINED || t == tokenizer.TOKEN_TYPE_UNKNOWN {
			if v.Values[i] != "" {
				b.specials = append(b.specials, v.Values[i])
			}
		}
	}
	sort.SliceStable(b.specials, func(i, j int) bool { return len(b.specials[i]) > len(b.specials[j]) })
	return b
}

// Encode returns the token ids of s, special tokens parsed, with BOS and
// EOS added as the vocabulary says when addSpecial is set.
func (b *llamaCppBPE) Encode(s string, addSpecial bool) ([]int32, error) {
	var ids []int32
	if addSpecial && b.vocab.AddBOS && len(b.vocab.BOS) > 0 {
		ids = append(ids, b.vocab.BOS[0])
	}
	for _, frag := range b.partition(s) {
		if frag.special {
			ids = append(ids, b.vocab.Encode(frag.text))
			continue
		}
		for _, piece := range b.split(frag.text) {
			ids = b.encodePiece(ids, piece)
		}
	}
	if addSpecial && b.vocab.AddEOS && len(b.vocab.EOS) > 0 {
		ids = append(ids, b.vocab.EOS[0])
	}
	return ids, nil
}

type fragment struct {
	text    string
	special bool
}

// partition cuts s at every occurrence of a special token's text.
func (b *llamaCppBPE) partition(s string) []fragment {
	frags := []fragment{{text: s}}
	for _, sp := range b.specials {
		var next []fragment
		for _, f := range frags {
			if f.special || !strings.Contains(f.text, sp) {
				next = append(next, f)
				continue
			}
			rest := f.text
			for {
				i := strings.Index(rest, sp)
				if i < 0 {
					break
				}
				if i > 0 {
					next = append(next, fragment{text: rest[:i]})
				}
				next = append(next, fragment{text: sp, special: true})
				rest = rest[i+len(sp):]
			}
			if rest != "" {
				next = append(next, fragment{text: rest})
			}
		}
		frags = next
	}
	return frags
}

// split applies the pre-tokenizer passes; text no pattern matches is kept
// as a piece of its own.
func (b *llamaCppBPE) split(s string) []string {
	pieces := []string{s}
	for _, re := range b.passes {
		var next []string
		for _, p := range pieces {
			runes := []rune(p)
			at := 0
			m, _ := re.FindRunesMatch(runes)
			for m != nil {
				if m.Index > at {
					next = append(next, string(runes[at:m.Index]))
				}
				if m.Length > 0 {
					next = append(next, m.String())
				}
				at = m.Index + m.Length
				m, _ = re.FindNextMatch(m)
			}
			if at < len(runes) {
				next = append(next, string(runes[at:]))
			}
		}
		pieces = next
	}
	return pieces
}

// byteRunes is GPT-2's byte-to-character table, as the vocabulary spells
// byte-level tokens.
var byteRunes = func() [256]rune {
	var t [256]rune
	n := rune(256)
	for c := range 256 {
		if ('!' <= c && c <= '~') || (0xA1 <= c && c <= 0xAC) || 0xAE <= c {
			t[c] = rune(c)
		} else {
			t[c] = n
			n++
		}
	}
	return t
}()

// encodePiece merges one pre-token's symbols by rank, the leftmost pair
// first among equals, and appends the resulting token ids; a symbol that is
// not a token falls back to its bytes' tokens.
func (b *llamaCppBPE) encodePiece(ids []int32, piece string) []int32 {
	if piece == "" {
		return ids
	}
	var sb strings.Builder
	for i := 0; i < len(piece); i++ {
		sb.WriteRune(byteRunes[piece[i]])
	}
	word := sb.String()
	if b.ignoreMerges {
		if id := b.vocab.Encode(word); id >= 0 {
			return append(ids, id)
		}
	}
	runes := []rune(word)
	syms := make([]symbol, len(runes))
	for i, r := range runes {
		syms[i] = symbol{text: string(r), prev: i - 1, next: i + 1}
	}
	syms[len(syms)-1].next = -1
	q := &bigramQueue{}
	add := func(l, r int) {
		if l < 0 || r < 0 {
			return
		}
		text := syms[l].text + syms[r].text
		if rank := b.vocab.Merge(syms[l].text, syms[r].text); rank >= 0 {
			heap.Push(q, bigram{left: l, right: r, rank: rank, text: text})
		}
	}
	for i := 1; i < len(syms); i++ {
		add(i-1, i)
	}
	for q.Len() > 0 {
		bg := heap.Pop(q).(bigram)
		l, r := &syms[bg.left], &syms[bg.right]
		if l.text == "" || r.text == "" || l.text+r.text != bg.text {
			continue // outdated: one side has merged since
		}
		l.text += r.text
		r.text = ""
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		add(l.prev, bg.left)
		add(bg.left, l.next)
	}
	for _, s := range syms {
		if s.text == "" {
			continue
		}
		if id := b.vocab.Encode(s.text); id >= 0 {
			ids = append(ids, id)
			continue
		}
		for _, r := range s.text {
			if id := b.vocab.Encode(string(r)); id >= 0 {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

type symbol struct {
	text       string
	prev, next int
}

type bigram struct {
	left, right, rank int
	text              string
}

// bigramQueue pops the lowest rank first, the leftmost among equals.
type bigramQueue []bigram

func (q bigramQueue) Len() int { return len(q) }
func (q bigramQueue) Less(i, j int) bool {
	if c := cmp.Compare(q[i].rank, q[j].rank); c != 0 {
		return c < 0
	}
	return q[i].left < q[j].left
}
func (q bigramQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *bigramQueue) Push(x any)   { *q = append(*q, x.(bigram)) }
func (q *bigramQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
