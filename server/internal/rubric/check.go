package rubric

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/state"
)

// Check checks one output against a rubric: one result per list item (per
// section for a count), notes included. rubricRel and outputRel name the
// two files in the results.
func Check(r *Rubric, rubricRel, outputRel string, data []byte) []state.RubricCheck {
	var out []state.RubricCheck
	text := string(data)
	lower := strings.ToLower(text)
	var heads map[string]bool
	for _, s := range r.Sections {
		base := state.RubricCheck{Rubric: rubricRel, Output: outputRel, Section: s.Heading, Kind: s.Kind}
		add := func(item string, ok bool, msg string, line int) {
			c := base
			c.Item, c.OK, c.Message, c.Line = item, ok, msg, line
			out = append(out, c)
		}
		switch s.Kind {
		case KindNote:
			c := base
			c.Note, c.OK = true, true
			c.Message = fmt.Sprintf("%q is kept as a note; icm does not check it", s.Heading)
			out = append(out, c)
		case KindSections:
			if heads == nil {
				heads = headingSet(data)
			}
			for _, it := range s.Items {
				ok := heads[normalize(it.Text)]
				add(it.Text, ok, failMsg(ok, fmt.Sprintf("missing section %q", it.Text)), 0)
			}
		case KindTerms:
			for _, it := range s.Items {
				ok := strings.Contains(lower, strings.ToLower(it.Text))
				add(it.Text, ok, failMsg(ok, fmt.Sprintf("missing term %q", it.Text)), 0)
			}
		case KindForbidden:
			for _, it := range s.Items {
				line := lineOf(text, it.Text)
				ok := line == 0
				add(it.Text, ok, failMsg(ok, fmt.Sprintf("forbidden term %q used", it.Text)), line)
			}
		case KindSources:
			for _, it := range s.Items {
				ok := cites(lower, it.Text)
				add(it.Text, ok, failMsg(ok, fmt.Sprintf("does not cite %s", it.Text)), 0)
			}
		case KindColumns:
			want := make([]string, len(s.Items))
			for i, it := range s.Items {
				want[i] = it.Text
			}
			missing := missingColumns(text, want)
			ok := len(missing) == 0
			add(strings.Join(want, ", "), ok, failMsg(ok, columnsMsg(want, missing)), 0)
		case KindLinkCount:
			if s.Count < 0 {
				continue
			}
			n := len(linksAndPaths(text))
			ok := n >= s.Count
			add(fmt.Sprint(s.Count), ok, failMsg(ok, fmt.Sprintf("%d link%s or path%s; at least %d expected", n, plural(n), plural(n), s.Count)), 0)
		}
	}
	return out
}

func failMsg(ok bool, msg string) string {
	if ok {
		return ""
	}
	return msg
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// headingSet is the output's headings, normalized.
func headingSet(data []byte) map[string]bool {
	set := map[string]bool{}
	for _, h := range markdown.Parse(data).Headings {
		set[normalize(h.Text)] = true
		// "## 3. Risks" and "## Risks:" have the section "Risks".
		set[normalize(numbering.ReplaceAllString(h.Text, ""))] = true
	}
	return set
}

var numbering = regexp.MustCompile(`^\s*(\d+[.)]\s*)+`)

// lineOf is the 1-based line where term first appears, case-insensitively
// (0 when it does not).
func lineOf(text, term string) int {
	t := strings.ToLower(term)
	if t == "" {
		return 0
	}
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(strings.ToLower(l), t) {
			return i + 1
		}
	}
	return 0
}

// cites reports whether the output names the path, written as the rubric
// has it or without a leading "./" or "/".
func cites(lower, p string) bool {
	p = strings.ToLower(strings.TrimSpace(p))
	for _, v := range []string{p, strings.TrimPrefix(p, "./"), strings.TrimPrefix(p, "/")} {
		if v != "" && strings.Contains(lower, v) {
			return true
		}
	}
	return false
}

// missingColumns returns the wanted columns that the table header with the
// most of them lacks: all of them must stand in one header.
func missingColumns(text string, want []string) []string {
	best := want
	for _, header := range tableHeaders(text) {
		have := map[string]bool{}
		for _, h := range header {
			have[normalize(h)] = true
		}
		var miss []string
		for _, w := range want {
			if !have[normalize(w)] {
				miss = append(miss, w)
			}
		}
		if len(miss) < len(best) {
			best = miss
		}
	}
	return best
}

func columnsMsg(want, missing []string) string {
	if len(missing) == len(want) {
		return fmt.Sprintf("no table has the columns %s", quoteAll(want))
	}
	return fmt.Sprintf("no table has all the columns %s: the closest lacks %s", quoteAll(want), quoteAll(missing))
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// tableHeaders returns the header cells of every pipe table outside code
// fences: a row of cells followed by a delimiter row.
func tableHeaders(text string) [][]string {
	lines := strings.Split(text, "\n")
	var out [][]string
	fence := ""
	for i := 0; i+1 < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if f := fenceMark(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" || !strings.Contains(t, "|") || !delimiterRow.MatchString(strings.TrimSpace(lines[i+1])) {
			continue
		}
		out = append(out, cells(t))
	}
	return out
}

var delimiterRow = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)

func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(row), "|"), "|")
	parts := strings.Split(row, "|")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), "*`")
	}
	return parts
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)[^)]*\)`)
	bareURL = regexp.MustCompile(`https?://[^\s)>\]]+`)
	codeRef = regexp.MustCompile("`([^`\\s]+)`")
	// barePath is a word with a folder and a file extension
	// (server/main.go, ./docs/a.md) or a file name with a known extension.
	barePath = regexp.MustCompile(`(?:^|[\s(])((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+|[\w-]+\.(?:md|txt|json|ya?ml|toml|go|py|ts|js|sql|cs|html|css|csv|pdf))\b`)
)

// linksAndPaths returns the distinct links and paths the output holds:
// Markdown link targets, URLs, and paths written bare or in backticks.
func linksAndPaths(text string) []string {
	set := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		set[strings.TrimSuffix(m[1], "/")] = true
	}
	for _, m := range bareURL.FindAllString(text, -1) {
		set[strings.TrimRight(strings.TrimSuffix(m, "/"), ".,;:")] = true
	}
	for _, m := range codeRef.FindAllStringSubmatch(text, -1) {
		if pathLike(m[1]) {
			set[m[1]] = true
		}
	}
	for _, m := range barePath.FindAllStringSubmatch(bareURL.ReplaceAllString(text, " "), -1) {
		set[strings.TrimRight(m[1], ".,;:")] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pathLike reports whether a backticked word names a file or folder.
func pathLike(s string) bool {
	return strings.Contains(s, "/") || (path.Ext(s) != "" && len(path.Ext(s)) <= 6 && !strings.ContainsAny(s, "()=<>"))
}
