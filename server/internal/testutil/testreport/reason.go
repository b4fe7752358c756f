package testreport

import (
	"regexp"
	"sort"
	"strings"
)

// place is the "file_test.go:12: " go test puts before a test's log line.
var place = regexp.MustCompile(`^\S+\.go:\d+: ?`)

// reason is the skip message in a test's output, on one line: its log
// lines without their places, banner rules and frames left out.
func reason(out []string) string {
	var parts []string
	for _, l := range ownLines(out) {
		l = strings.TrimSpace(place.ReplaceAllString(l, ""))
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "*"), "*"))
		if strings.Trim(l, "*") == "" {
			continue
		}
		parts = append(parts, l)
	}
	r := strings.Join(parts, " ")
	if r == "" {
		return "(no reason given)"
	}
	return cut(r)
}

// firstLine is the first line of output that reads as why something
// failed: a test's "file_test.go:12: ..." or a panic, else the first
// line at all; "" when there is none.
func firstLine(out []string) string {
	first := ""
	for _, l := range ownLines(out) {
		if place.MatchString(l) || strings.HasPrefix(l, "panic: ") {
			return cut(l)
		}
		if first == "" {
			first = l
		}
	}
	return cut(first)
}

// ownLines splits output into trimmed, non-empty lines, leaving out go
// test's banners ("=== RUN", "--- FAIL: ...") and status lines ("PASS",
// "FAIL", "ok  \tpkg", "FAIL\tpkg").
func ownLines(out []string) []string {
	var lines []string
	for _, o := range out {
		if strings.HasPrefix(o, "=== ") || strings.HasPrefix(o, "ok  \t") || strings.HasPrefix(o, "FAIL\t") {
			continue
		}
		for _, l := range strings.Split(o, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l == "PASS" || l == "FAIL" || strings.HasPrefix(l, "--- ") {
				continue
			}
			lines = append(lines, l)
		}
	}
	return lines
}

// cut keeps a line to 240 characters.
func cut(s string) string {
	if rs := []rune(s); len(rs) > 240 {
		return string(rs[:240]) + "…"
	}
	return s
}

// sortedLeaves returns the tests that are no other test's parent, sorted.
func sortedLeaves(tests []string) []string {
	var leaves []string
	for _, t := range tests {
		parent := false
		for _, u := range tests {
			parent = parent || strings.HasPrefix(u, t+"/")
		}
		if !parent {
			leaves = append(leaves, t)
		}
	}
	sort.Strings(leaves)
	return leaves
}
