package evidence

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/icm-tool/icm/server/internal/evidence/urls"
	"github.com/icm-tool/icm/server/internal/textnorm"
)

// maxPassageWords is the longest passage: a longer sentence is cut into
// windows of this many words, each starting half a window after the
// last, so that a claim near a cut is whole in one of them.
const maxPassageWords = 100

// Compute finds the evidence for one output. It never fails: what it
// could not do (a bound reached, an embedding model that failed) is said
// in the result, which is then partial or carries a note.
func Compute(ctx context.Context, in Input, opt Options) *Result {
	res, _ := compute(ctx, in, opt)
	return res
}

// compute is Compute, and whether its result may be kept: not when an
// embedding model failed, which may work next time.
func compute(parent context.Context, in Input, opt Options) (*Result, bool) {
	opt = opt.withDefaults()
	ctx, cancel := context.WithTimeout(parent, opt.MaxTime)
	defer cancel()
	c := &computation{opt: opt, res: &Result{Path: in.Path, Method: "lexical", Threshold: opt.Threshold}}
	c.readSources(ctx, in)
	c.splitOutput(in)
	c.scoreUnits(ctx)
	semantic := false
	if opt.Embedder != nil {
		// The model gets its own time: a CPU embeds far slower than the
		// lexical method scores.
		ectx, ecancel := context.WithTimeout(parent, opt.MaxEmbedTime)
		err := c.semantic(ectx)
		ecancel()
		if err != nil {
			c.res.Notes = append(c.res.Notes, embedFailure(opt.Embedder.Model(), err))
		} else {
			semantic = true
			c.res.Method = "lexical+semantic (" + opt.Embedder.Model() + ")"
			c.res.SemanticThreshold = opt.SemanticThreshold
		}
	}
	c.finish()
	return c.res, semantic || opt.Embedder == nil
}

// embedFailure is the note of an embedding model that failed: what
// happened, and what to check.
func embedFailure(model string, err error) string {
	return "the embedding model " + model + " failed (" + err.Error() + "), so the scores are lexical only: check that the model server is running and has this model"
}

// computation is one Compute's state.
type computation struct {
	opt     Options
	res     *Result
	sources []*source
	idx     *index
	facts   *facts
	out     *text
	units   []*unitWork
}

// text is a text as given and as normalised, and how to map between them.
type text struct {
	orig  []byte
	norm  []byte
	offs  *textnorm.Offsets
	lines []int // where each line of orig starts, built on first use
}

func newText(orig []byte) *text {
	norm, offs := textnorm.Map(orig)
	return &text{orig: orig, norm: norm, offs: offs}
}

// place maps a range of the normalised text to the text as given, with
// its first and last lines.
func (t *text) place(start, end int) (r Range, line, endLine int) {
	r = Range{Start: t.offs.Original(start), End: t.offs.Original(end)}
	if t.lines == nil {
		t.lines = []int{0}
		for i, b := range t.orig {
			if b == '\n' {
				t.lines = append(t.lines, i+1)
			}
		}
	}
	at := func(off int) int { return sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) }
	return r, at(r.Start), at(max(r.Start, r.End-1))
}

// source is one source, read.
type source struct {
	Source
	text *text
}

// unitWork is one unit while it is computed.
type unitWork struct {
	block
	words   []word
	q       query
	matches []match
	// ranked are the passages best by BM25, the semantic score's candidates.
	ranked []int32
	unit   Unit
}

func (c *computation) limit(format string, args ...any) {
	c.res.Partial = true
	c.res.Limits = append(c.res.Limits, fmt.Sprintf(format, args...))
}

// readSources splits the sources into passages and indexes them, within
// the bounds on bytes, passages and time.
func (c *computation) readSources(ctx context.Context, in Input) {
	c.idx, c.facts = newIndex(), newFacts()
	for _, u := range in.ReadURLs {
		c.facts.read[urls.Normalize(u)] = true
	}
	// What a tool call fetched or was asked to read counts as read even
	// past a bound: the run read it, whatever evidence does.
	for _, s := range in.Sources {
		if s.URL != "" {
			c.facts.read[urls.Normalize(s.URL)] = true
		}
		c.facts.addURLs(s.Args)
	}
	budget := c.opt.MaxSourceBytes
	for i, s := range in.Sources {
		if ctx.Err() != nil {
			c.limit("time ran out after %d of %d sources were read (bound %s)", i, len(in.Sources), c.opt.MaxTime)
			break
		}
		data, cut := s.Text, false
		if len(data) > budget {
			data, cut = data[:lineStart(data, budget)], true
			c.limit("the sources were read up to %d bytes (bound); %s was read in part, the sources after it not at all", c.opt.MaxSourceBytes, s.Name)
		}
		budget -= len(data)
		src := &source{Source: s, text: newText(data)}
		c.sources = append(c.sources, src)
		if !c.index(len(c.sources)-1, src) || cut {
			break
		}
	}
	c.idx.done()
}

// index adds one source's passages and facts; it reports false when the
// bound on passages is reached. A passage is a sentence of a block (a
// paragraph, list item, table row, quote or code block), with the
// headings above it; a sentence longer than maxPassageWords is cut into
// windows.
func (c *computation) index(n int, s *source) bool {
	norm := string(s.text.norm)
	all := collect(norm)
	c.facts.addText(norm, all)
	bs, _ := blocks(s.text.norm, true) // a source past the parser's limits is split at blank lines
	spans := make([][2]int, len(bs))
	for i, b := range bs {
		spans[i] = [2]int{b.start, b.end}
	}
	for i, bws := range split(all, spans) {
		b := bs[i]
		sents := sentences(norm, b.start, b.end)
		for j, ws := range split(bws, sents) {
			if len(ws) == 0 {
				continue
			}
			for from := 0; ; from += maxPassageWords / 2 {
				to := min(len(ws), from+maxPassageWords)
				if len(c.idx.passages) >= c.opt.MaxPassages {
					c.limit("the sources were split into %d passages (bound); the rest of %s and the sources after it were not read", c.opt.MaxPassages, s.Name)
					return false
				}
				start, end := sents[j][0], sents[j][1]
				if from > 0 {
					start = ws[from].start
				}
				if to < len(ws) {
					end = ws[to-1].end
				}
				c.idx.add(n, start, end, b.headings, ws[from:to])
				if to >= len(ws) {
					break
				}
			}
		}
	}
	return true
}

// splitOutput splits the output into units, within the bounds on bytes
// and units.
func (c *computation) splitOutput(in Input) {
	data := in.Text
	if len(data) > c.opt.MaxOutputBytes {
		data = data[:lineStart(data, c.opt.MaxOutputBytes)]
		c.limit("the output was read up to %d bytes (bound) of %d", len(data), len(in.Text))
	}
	c.out = newText(data)
	bs, err := blocks(c.out.norm, false)
	if err != nil {
		c.res.Notes = append(c.res.Notes, "the output cannot be read as Markdown ("+err.Error()+"): its units are split at blank lines")
	}
	if len(bs) > c.opt.MaxUnits {
		c.limit("the output has %d units; the first %d were checked (bound)", len(bs), c.opt.MaxUnits)
		bs = bs[:c.opt.MaxUnits]
	}
	for _, b := range bs {
		u := &unitWork{block: b, words: collect(string(c.out.norm[b.start:b.end]))}
		r, line, endLine := c.out.place(b.start, b.end)
		u.unit = Unit{Kind: b.kind, Range: r, Line: line, EndLine: endLine, Headings: b.headings,
			Text: string(c.out.orig[r.Start:r.End]), Status: Unchecked}
		c.units = append(c.units, u)
	}
}

// scoreUnits scores each unit lexically and marks what rests on nothing,
// until time runs out.
func (c *computation) scoreUnits(ctx context.Context) {
	for i, u := range c.units {
		if ctx.Err() != nil {
			c.limit("time ran out after %d of %d units (bound %s)", i, len(c.units), c.opt.MaxTime)
			return
		}
		unitText := string(c.out.norm[u.start:u.end])
		for _, m := range c.facts.marks(unitText) {
			r, line, _ := c.out.place(u.start+m.start, u.start+m.end)
			u.unit.Marks = append(u.unit.Marks, Mark{Kind: m.kind, Text: string(c.out.orig[r.Start:r.End]), Range: r, Line: line, Message: m.msg})
		}
		claim := claimWords(unitText, u.words)
		u.q = c.idx.query(claim)
		if len(u.q.ids) < minClaimWords {
			u.unit.Status = NoClaim
			continue
		}
		u.unit.Lexical, u.matches = c.idx.support(split(claim, sentences(unitText, 0, len(unitText))), c.opt.Support)
		if c.opt.Embedder != nil {
			u.ranked = c.idx.ranked(u.q, semanticCandidates)
		}
		u.unit.Score = u.unit.Lexical
		u.unit.Status = Unsupported
	}
}

// minClaimWords is the fewest content words (outside URLs) a unit needs
// to hold a claim: one word is a label ("Sources:"), a name, a one-word
// row. Its marks still count.
const minClaimWords = 2

// claimWords are the words of a unit that make its claim: those outside
// the URLs it cites (a URL is judged by its mark).
func claimWords(text string, ws []word) []word {
	us := urls.Find(text)
	if len(us) == 0 {
		return ws
	}
	out := ws[:0:0]
	for _, w := range ws {
		inURL := false
		for _, u := range us {
			if w.start < u.End && u.Start < w.end {
				inURL = true
				break
			}
		}
		if !inURL {
			out = append(out, w)
		}
	}
	return out
}

// finish decides each unit's status, lists its passages and sums up.
func (c *computation) finish() {
	c.res.Units = make([]Unit, 0, len(c.units))
	for _, u := range c.units {
		semantic := u.unit.Semantic != nil && *u.unit.Semantic >= c.opt.SemanticThreshold
		if u.unit.Status == Unsupported && (u.unit.Score >= c.res.Threshold || semantic) {
			u.unit.Status = Supported
		}
		u.unit.Score, u.unit.Lexical = round(u.unit.Score), round(u.unit.Lexical)
		if u.unit.Semantic != nil {
			v := round(*u.unit.Semantic)
			u.unit.Semantic = &v
		}
		for _, m := range u.matches {
			if m.score <= 0 {
				continue
			}
			u.unit.Support = append(u.unit.Support, c.passage(m))
		}
		c.res.Units = append(c.res.Units, u.unit)
	}
	c.res.Summary = summarize(c.res.Units, c.res.Partial)
}

// passage describes a matched passage for the result.
func (c *computation) passage(m match) Passage {
	p := c.idx.passages[m.p]
	s := c.sources[p.src]
	r, line, endLine := s.text.place(p.start, p.end)
	path := s.Name
	for _, h := range p.headings {
		path += " › " + h
	}
	out := Passage{Source: s.Name, SourceKind: s.Kind, CallID: s.CallID, Path: path,
		Range: r, Line: line, EndLine: endLine, Text: string(bytes.TrimSpace(s.text.orig[r.Start:r.End])), Score: round(m.score)}
	if m.semantic != nil {
		v := round(*m.semantic)
		out.Semantic = &v
	}
	return out
}

// round keeps three decimals of a score: the status is decided before,
// on the whole value; more digits say nothing to a person.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }
