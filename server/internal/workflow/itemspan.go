package workflow

import (
	"strings"

	"github.com/icm-tool/icm/server/internal/report"
)

// LocateItems finds each item's section in an output: an item the person
// left alone is found by its text; one they edited is what lies between
// its found neighbours (or, when several edited items share that room, by
// the heading its answer started with). When item texts repeat (two items
// the model answered alike), the items are placed so that as many as can
// be are found in order and no text is left to no item: an edited first
// item is not mistaken for its twin further down.
func LocateItems(output string, items []WrittenItem) []report.ItemSpan {
	spans := make([]report.ItemSpan, len(items))
	for i, it := range items {
		spans[i] = report.ItemSpan{Index: it.Index, Title: it.Title}
	}
	for i, start := range matchItems(output, items) {
		if start >= 0 {
			text := strings.TrimSpace(items[i].Text)
			spans[i].Start, spans[i].End, spans[i].Found = start, start+len(text), true
		}
	}
	// The edited items: each run of them shares the room between the
	// found items around it.
	for i := 0; i < len(spans); {
		if spans[i].Found {
			i++
			continue
		}
		j := i
		for j < len(spans) && !spans[j].Found {
			j++
		}
		lo, hi := 0, len(output)
		if i > 0 {
			lo = spans[i-1].End
		}
		if j < len(spans) {
			hi = spans[j].Start
		}
		placeGap(output, lo, hi, items[i:j], spans[i:j])
		i = j
	}
	return spans
}

// matchItems picks, for each item, where its unedited text stands in
// output (-1 for an item not found): the in-order choice that finds the
// most items and, among those, leaves the fewest stretches of text that
// no item covers.
func matchItems(output string, items []WrittenItem) []int {
	occ := make([][]int, len(items))
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = strings.TrimSpace(it.Text)
		if texts[i] == "" {
			continue
		}
		for from := 0; ; {
			j := wholeIndex(output, texts[i], from)
			if j < 0 {
				break
			}
			occ[i] = append(occ[i], j)
			from = j + 1
		}
	}
	type key struct {
		i, cur  int
		skipped bool
	}
	type best struct {
		found, orphans int
		at             int // the chosen start for item i, -1 for none
	}
	better := func(a, b best) bool {
		return a.found > b.found || (a.found == b.found && a.orphans < b.orphans)
	}
	orphan := func(from, to int) int {
		if strings.TrimSpace(output[from:to]) != "" {
			return 1
		}
		return 0
	}
	memo := map[key]best{}
	var solve func(i, cur int, skipped bool) best
	solve = func(i, cur int, skipped bool) best {
		if i == len(items) {
			if skipped {
				return best{at: -1}
			}
			return best{orphans: orphan(cur, len(output)), at: -1}
		}
		k := key{i, cur, skipped}
		if b, ok := memo[k]; ok {
			return b
		}
		// The item was edited (or deleted): it takes a share of the gap.
		b := solve(i+1, cur, true)
		b.at = -1
		for _, at := range occ[i] {
			if at < cur {
				continue
			}
			r := solve(i+1, at+len(texts[i]), false)
			c := best{found: r.found + 1, orphans: r.orphans, at: at}
			if !skipped {
				c.orphans += orphan(cur, at)
			}
			if better(c, b) {
				b = c
			}
		}
		memo[k] = b
		return b
	}
	starts := make([]int, len(items))
	cur, skipped := 0, false
	for i := range items {
		b := solve(i, cur, skipped)
		starts[i] = b.at
		if b.at >= 0 {
			cur, skipped = b.at+len(texts[i]), false
		} else {
			skipped = true
		}
	}
	return starts
}

// wholeIndex finds text in output from offset on where it stands on whole
// lines: an item answer that a person extended ("gamma" grown to "gamma,
// mine") is not its old self.
func wholeIndex(output, text string, from int) int {
	for from <= len(output) {
		j := strings.Index(output[from:], text)
		if j < 0 {
			return -1
		}
		start, end := from+j, from+j+len(text)
		if (start == 0 || output[start-1] == '\n') && (end == len(output) || output[end] == '\n' || output[end] == '\r') {
			return start
		}
		from = start + 1
	}
	return -1
}

// placeGap places the edited items of one gap of the output.
func placeGap(output string, lo, hi int, items []WrittenItem, spans []report.ItemSpan) {
	if len(spans) == 1 {
		s, e := trimSpan(output, lo, hi)
		spans[0].Start, spans[0].End, spans[0].Found, spans[0].Edited = s, e, true, true
		return
	}
	// Several: split the gap at the heading line each answer began with.
	starts := make([]int, len(items))
	at := lo
	for k, it := range items {
		h := firstLine(strings.TrimSpace(it.Text))
		if !strings.HasPrefix(h, "#") {
			return
		}
		j := strings.Index(output[at:hi], h)
		if j < 0 {
			return
		}
		starts[k] = at + j
		at = starts[k] + len(h)
	}
	for k := range spans {
		end := hi
		if k+1 < len(spans) {
			end = starts[k+1]
		}
		s, e := trimSpan(output, starts[k], end)
		spans[k].Start, spans[k].End, spans[k].Found, spans[k].Edited = s, e, true, true
	}
}

// trimSpan drops the blank lines that separate sections.
func trimSpan(output string, s, e int) (int, int) {
	for s < e && isSpace(output[s]) {
		s++
	}
	for e > s && isSpace(output[e-1]) {
		e--
	}
	return s, e
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimRight(s[:i], "\r ")
	}
	return s
}

// replaceSpan puts text in place of a section; an empty section (the
// person deleted the item) gets its separating blank lines back.
func replaceSpan(output string, sp report.ItemSpan, text string) string {
	text = strings.TrimSpace(text)
	if sp.Start < sp.End {
		return output[:sp.Start] + text + output[sp.End:]
	}
	before, after := output[:sp.Start], output[sp.End:]
	if strings.TrimSpace(before) != "" {
		before = strings.TrimRight(before, "\n") + "\n\n"
	}
	if strings.TrimSpace(after) != "" {
		text += "\n\n"
		after = strings.TrimLeft(after, "\n")
	}
	return before + text + after
}
