package browser

import (
	"context"
	"fmt"
	"strings"
)

// Summarize answers question (or summarises, when it is empty) from the
// whole page.
func (r *Reader) Summarize(ctx context.Context, p *Page, question string) (string, error) {
	chunks := r.chunks(p)
	if len(chunks) == 0 {
		return "", fmt.Errorf("%s has no readable text", p.URL)
	}
	if len(chunks) == 1 {
		return r.chat(ctx, oneSummarySystem, oneSummaryPrompt(p.URL, question, chunks[0]), nil)
	}
	notes := make([]string, len(chunks))
	errs := r.each(ctx, len(chunks), func(ctx context.Context, i int) error {
		out, err := r.chat(ctx, mapSummarySystem, mapSummaryPrompt(p.URL, question, i, len(chunks), chunks[i]), nil)
		notes[i] = out
		return err
	})
	if err := ctx.Err(); err != nil {
		return "", err
	}
	failed, first := firstErr(errs)
	if failed == len(chunks) {
		return "", first
	}
	var kept []string
	for i, n := range notes {
		if errs[i] != nil {
			r.log().Warn("summarize: a part of the page failed; going on without it", "url", p.URL, "part", i+1, "of", len(chunks), "err", errs[i])
			continue
		}
		if !isNothing(n) {
			kept = append(kept, n)
		}
	}
	if len(kept) == 0 {
		if strings.TrimSpace(question) != "" {
			return fmt.Sprintf("The page does not say anything about: %s", question), nil
		}
		return "The page holds no content beyond navigation and site chrome.", nil
	}
	sum, err := r.reduce(ctx, p.URL, question, kept)
	if err != nil {
		return "", err
	}
	if failed > 0 {
		sum += fmt.Sprintf("\n\n(Note: %d of %d parts of the page could not be read: %v.)", failed, len(chunks), first)
	}
	return sum, nil
}

// reduce merges notes into one answer. Notes too long for one call are
// merged in groups first, and the group answers merged again.
func (r *Reader) reduce(ctx context.Context, url, question string, notes []string) (string, error) {
	budget := r.ChunkChars
	if budget <= 0 {
		budget = DefaultChunkChars
	}
	budget *= 2
	for {
		groups := group(notes, budget)
		if len(groups) == 1 {
			return r.chat(ctx, reduceSummarySystem, reducePrompt(url, question, groups[0]), nil)
		}
		merged := make([]string, len(groups))
		errs := r.each(ctx, len(groups), func(ctx context.Context, i int) error {
			out, err := r.chat(ctx, reduceSummarySystem, reducePrompt(url, question, groups[i]), nil)
			merged[i] = out
			return err
		})
		if _, err := firstErr(errs); err != nil {
			return "", err
		}
		if len(merged) >= len(notes) {
			// No progress (each note alone is over budget): finish in one call.
			return r.chat(ctx, reduceSummarySystem, reducePrompt(url, question, merged), nil)
		}
		notes = merged
	}
}

// group packs notes in order into groups of at most budget characters
// (a note larger than budget is a group of its own).
func group(notes []string, budget int) [][]string {
	var out [][]string
	var cur []string
	size := 0
	for _, n := range notes {
		if len(cur) > 0 && size+len(n) > budget {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, n)
		size += len(n) + 3
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
