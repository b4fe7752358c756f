// Package rubric reads the review rubrics kept beside a stage
// (references/review-rubric.md for every output,
// references/<output-stem>-rubric.md for one) and checks an output
// against them. A rubric is Markdown: each section a `-` list under its
// heading. Every check is deterministic text matching; nothing here asks a
// model, and a section icm does not know is a note, never a failure.
package rubric

import (
	"fmt"
	"strconv"
	"strings"
)

// Kinds of rubric sections.
const (
	KindSections  = "required-sections"
	KindTerms     = "required-terms"
	KindForbidden = "forbidden-terms"
	KindSources   = "required-sources"
	KindColumns   = "required-table-columns"
	KindLinkCount = "required-link-or-path-count"
	// KindNote is a section kept as a note: Required Artifact Shapes and
	// every heading icm does not know.
	KindNote = "note"
)

// kinds maps a heading, lower-cased and with single spaces, to its kind.
var kinds = map[string]string{
	"required sections":           KindSections,
	"required terms":              KindTerms,
	"forbidden terms":             KindForbidden,
	"required sources":            KindSources,
	"required table columns":      KindColumns,
	"required link or path count": KindLinkCount,
}

// Rubric is a parsed rubric file.
type Rubric struct {
	Sections []Section
}

// Section is one heading of a rubric and the items listed under it.
type Section struct {
	// Heading is the heading as written; Kind what icm makes of it.
	Heading string
	Kind    string
	// Line is the heading's 1-based line in the rubric file.
	Line  int
	Items []Item
	// Count is the N of a Required Link Or Path Count section (-1 when the
	// section gives no usable integer: a problem, not a check).
	Count int
}

// Item is one `-` line under a heading.
type Item struct {
	Text string
	Line int
}

// Problem is something wrong in the rubric itself: shown, and the
// section it is about checks nothing.
type Problem struct {
	Line    int
	Message string
}

// Parse reads a rubric. Headings are matched case-insensitively; the
// text before the first heading and lines that are not list items are
// prose, kept out of the checks. Problems say what was not understood.
func Parse(src []byte) (*Rubric, []Problem) {
	r := &Rubric{}
	var problems []Problem
	var cur *Section
	fence := ""
	for i, line := range strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if f := fenceMark(t); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(t, fence) && strings.TrimLeft(t, fence[:1]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if h, ok := headingText(t); ok {
			kind, known := kinds[normalize(h)]
			if !known {
				kind = KindNote
			}
			r.Sections = append(r.Sections, Section{Heading: h, Kind: kind, Line: n, Count: -1})
			cur = &r.Sections[len(r.Sections)-1]
			continue
		}
		if cur == nil {
			continue
		}
		item, ok := listItem(t)
		if !ok {
			if cur.Kind == KindLinkCount && t != "" && cur.Count < 0 {
				// "At least 3" written as prose under the heading.
				if v, ok := firstInt(t); ok {
					cur.Count = v
				}
			}
			continue
		}
		cur.Items = append(cur.Items, Item{Text: item, Line: n})
		if cur.Kind == KindLinkCount && cur.Count < 0 {
			if v, ok := firstInt(item); ok {
				cur.Count = v
			}
		}
	}
	for _, s := range r.Sections {
		switch {
		case s.Kind == KindLinkCount && s.Count < 0:
			problems = append(problems, Problem{Line: s.Line, Message: fmt.Sprintf("%q gives no number: write one list item with the count, e.g. `- 3`", s.Heading)})
		case s.Kind != KindNote && s.Kind != KindLinkCount && len(s.Items) == 0:
			problems = append(problems, Problem{Line: s.Line, Message: fmt.Sprintf("%q lists nothing: write one `-` item per line under it", s.Heading)})
		}
	}
	return r, problems
}

// fenceMark returns the fence a line opens or closes ("```" or "~~~").
func fenceMark(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// headingText returns the text of an ATX heading line.
func headingText(t string) (string, bool) {
	if !strings.HasPrefix(t, "#") {
		return "", false
	}
	level := len(t) - len(strings.TrimLeft(t, "#"))
	if level > 6 || (len(t) > level && t[level] != ' ' && t[level] != '\t') {
		return "", false
	}
	h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[level:]), "#"))
	return h, h != ""
}

// listItem returns the text of a `-`, `*` or `+` list line, without
// the quotes or backticks an author may put around one term.
func listItem(t string) (string, bool) {
	if len(t) < 2 || !strings.ContainsRune("-*+", rune(t[0])) || (t[1] != ' ' && t[1] != '\t') {
		return "", false
	}
	s := strings.TrimSpace(t[2:])
	s = strings.TrimPrefix(strings.TrimPrefix(s, "[ ] "), "[x] ")
	return unquote(s), s != ""
}

// unquote strips one pair of surrounding backticks or quotes.
func unquote(s string) string {
	for _, q := range []string{"`", `"`, "'", "“"} {
		end := q
		if q == "“" {
			end = "”"
		}
		if len(s) >= len(q)+len(end) && strings.HasPrefix(s, q) && strings.HasSuffix(s, end) {
			return strings.TrimSpace(s[len(q) : len(s)-len(end)])
		}
	}
	return s
}

// normalize lower-cases a heading and folds its spaces, so "Required
// table  columns" and "REQUIRED TABLE COLUMNS" read alike.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), ":"))), " ")
}

// firstInt reads the first whole number in s ("at least 4 links" gives 4).
func firstInt(s string) (int, bool) {
	start := -1
	for i, r := range s {
		if r >= '0' && r <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			v, err := strconv.Atoi(s[start:i])
			return v, err == nil
		}
	}
	if start < 0 {
		return 0, false
	}
	v, err := strconv.Atoi(s[start:])
	return v, err == nil
}
