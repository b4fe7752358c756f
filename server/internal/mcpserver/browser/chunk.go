package browser

import (
	"strings"
	"unicode/utf8"
)

// Chunk cuts Markdown into pieces of at most max characters (bytes of
// UTF-8), cutting between blocks (paragraphs, list items, fenced code)
// where it can, then between lines, then between words. Each piece after
// the first starts with up to overlap characters from the end of the one
// before, so a sentence cut at a boundary is still read whole once.
func Chunk(md string, max, overlap int) []string {
	if max <= 0 {
		max = 6000
	}
	if overlap < 0 || overlap > max/2 {
		overlap = max / 2
	}
	var pieces []string
	for _, b := range blocks(md) {
		pieces = append(pieces, split(b, max)...)
	}
	var chunks []string
	var cur []string
	size := 0
	for _, p := range pieces {
		if len(cur) > 0 && size+2+len(p) > max {
			chunks = append(chunks, strings.Join(cur, "\n\n"))
			tail := tailOf(cur, overlap)
			cur, size = nil, 0
			if tail != "" && len(tail)+2+len(p) <= max {
				cur, size = []string{tail}, len(tail)
			}
		}
		if len(cur) > 0 {
			size += 2
		}
		cur = append(cur, p)
		size += len(p)
	}
	if len(cur) > 0 {
		chunks = append(chunks, strings.Join(cur, "\n\n"))
	}
	return chunks
}

// tailOf returns the last whole pieces of cur that fit in n characters,
// or the end of the last piece cut at a word boundary when none fits.
func tailOf(cur []string, n int) string {
	if n == 0 {
		return ""
	}
	size := 0
	i := len(cur)
	for i > 0 && size+len(cur[i-1])+2 <= n {
		size += len(cur[i-1]) + 2
		i--
	}
	if i < len(cur) {
		return strings.Join(cur[i:], "\n\n")
	}
	last := cur[len(cur)-1]
	start := max(len(last)-n, 0)
	for start < len(last) && !utf8.RuneStart(last[start]) {
		start++
	}
	if sp := strings.IndexAny(last[start:], " \n"); sp >= 0 {
		start += sp + 1
	}
	return strings.TrimSpace(last[start:])
}

// blocks splits Markdown at blank lines, keeping fenced code blocks whole.
func blocks(md string) []string {
	var out []string
	var cur []string
	fence := ""
	emit := func() {
		if b := strings.TrimSpace(strings.Join(cur, "\n")); b != "" {
			out = append(out, b)
		}
		cur = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			cur = append(cur, line)
			if strings.HasPrefix(t, fence) {
				fence = ""
				emit()
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			emit()
			fence = t[:3]
			cur = append(cur, line)
			continue
		}
		if t == "" {
			emit()
			continue
		}
		cur = append(cur, line)
	}
	emit()
	return out
}

// split cuts one block longer than max at line, then word, then rune
// boundaries.
func split(b string, max int) []string {
	if len(b) <= max {
		return []string{b}
	}
	var out []string
	var cur strings.Builder
	add := func(s, sep string) {
		if cur.Len() > 0 && cur.Len()+len(sep)+len(s) > max {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteString(sep)
		}
		cur.WriteString(s)
	}
	for _, line := range strings.Split(b, "\n") {
		if len(line) <= max {
			add(line, "\n")
			continue
		}
		for _, w := range strings.Fields(line) {
			for len(w) > max {
				i := max
				for i > 0 && !utf8.RuneStart(w[i]) {
					i--
				}
				if i == 0 {
					i = max // not UTF-8: cut anywhere rather than stall
				}
				add(w[:i], " ")
				w = w[i:]
			}
			add(w, " ")
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
