package contract

import (
	"strings"
)

// reviewHeadings are the headings, lower-cased, of the section a contract
// keeps for the person at the gate: what to check before approving.
var reviewHeadings = map[string]bool{
	"review gate": true, "review gates": true, "review checklist": true,
	"human review": true, "review": true, "before approving": true,
}

// ReviewGateRole is what a Review Gate section is, said the same way
// wherever icm says it (check's note, icm help gates, the README): the
// model reads the contract whole when it has one.
const ReviewGateRole = "a checklist for the person at the review gate, sent to the model as the author wrote it"

// IsReviewHeading reports whether a heading names a Review Gate section.
func IsReviewHeading(h string) bool { return reviewHeadings[normalHeading(h)] }

// ReviewGate returns the text of the contract's Review Gate section as its
// author wrote it, trimmed; "" when it has none. It is the checklist shown
// where a person reviews the output: the CLI's review-gate lines, the
// editor's notice and the output file's hover.
func (c *Contract) ReviewGate() string {
	if c == nil {
		return ""
	}
	for _, s := range c.Sections {
		// A Gate section in words is someone else's review gate.
		if reviewHeadings[normalHeading(s.Name)] || (s.Kind == KindGate && c.ProseSection(s)) {
			return strings.TrimSpace(s.Text)
		}
	}
	return ""
}

// ReviewItems returns the Review Gate's checklist as lines: each list item
// without its bullet or box, or the text's lines when it is prose.
func ReviewItems(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		for _, p := range []string{"- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "- ", "* ", "+ "} {
			if strings.HasPrefix(t, p) {
				t = strings.TrimSpace(t[len(p):])
				break
			}
		}
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// normalHeading is a heading lower-cased, its spaces single, without a
// trailing colon.
func normalHeading(h string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(h), ":"))), " ")
}
