// Package suggest finds the name a person probably meant: the "did you
// mean" of a misspelt path, config key or model name.
package suggest

import "strings"

// Distance is the Levenshtein edit distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest returns the candidate closest to name when it is close enough
// to be a slip (a third of the name's length in edits, at least 2), else "".
// Case is ignored; a candidate equal to name is not a suggestion.
func Nearest(name string, candidates []string) string {
	n := strings.ToLower(name)
	best, bestD := "", max(2, len(n)/3)+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == n {
			return ""
		}
		if d := Distance(n, lc); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Model returns the installed model a missing one was probably meant to
// be: the same name with ":latest" understood, a close spelling of the
// whole name, or the one model of the same family (the part before the
// tag) when there is exactly one. "" when nothing is close.
func Model(name string, installed []string) string {
	want := withTag(strings.ToLower(strings.TrimSpace(name)))
	for _, m := range installed {
		if withTag(strings.ToLower(m)) == want {
			return ""
		}
	}
	if s := Nearest(want, installed); s != "" {
		return s
	}
	family, _, _ := strings.Cut(want, ":")
	var same []string
	for _, m := range installed {
		if f, _, _ := strings.Cut(strings.ToLower(m), ":"); f == family || Distance(f, family) <= 1 {
			same = append(same, m)
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	return ""
}

func withTag(name string) string {
	if name != "" && !strings.Contains(name, ":") {
		return name + ":latest"
	}
	return name
}

// ModelTypo returns the installed model name is a misspelling of (see
// Model), or "" when name may well be another model a person means to
// pull: the same family with another size ("qwen3:4b" beside
// "qwen3:8b") or another tag. A misspelt family ("qwen35:9b" for
// "qwen3.5:9b") or a slip in the tag ("qwen3.5:9") is a typo: pulling it
// is never the fix.
func ModelTypo(name string, installed []string) string {
	near := Model(name, installed)
	if near == "" {
		return ""
	}
	family, tag, _ := strings.Cut(withTag(strings.ToLower(strings.TrimSpace(name))), ":")
	nearFamily, nearTag, _ := strings.Cut(withTag(strings.ToLower(near)), ":")
	if family != nearFamily {
		return near
	}
	if Distance(tag, nearTag) <= 1 && !(isSize(tag) && isSize(nearTag)) {
		return near
	}
	return ""
}

// isSize says whether a tag names a model's size, such as "9b", "1.7b"
// or "135m": two sizes are two models, however alike they are spelt.
func isSize(tag string) bool {
	num, ok := strings.CutSuffix(tag, "b")
	if !ok {
		num, ok = strings.CutSuffix(tag, "m")
	}
	if !ok || num == "" {
		return false
	}
	for _, r := range num {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}
