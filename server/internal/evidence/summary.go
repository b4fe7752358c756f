package evidence

import (
	"fmt"
	"strings"
)

// summarize counts the units and their marks, and says it in one line:
// "21 of 24 paragraphs supported · 1 URL never read".
func summarize(units []Unit, partial bool) Summary {
	var s Summary
	kinds := map[UnitKind]bool{}
	for _, u := range units {
		switch u.Status {
		case Supported:
			s.Supported++
		case Unsupported:
			s.Unsupported++
		case Unchecked:
			s.Unchecked++
		}
		if u.Status != NoClaim {
			s.Units++
			kinds[u.Kind] = true
		}
		for _, m := range u.Marks {
			switch m.Kind {
			case MarkURL:
				s.URLsNeverRead++
			case MarkNumber:
				s.NumbersNotFound++
			case MarkDate:
				s.DatesNotFound++
			case MarkQuote:
				s.QuotesNotFound++
			}
		}
	}
	noun := "parts"
	if len(kinds) == 1 {
		for k := range kinds {
			noun = kindNoun(k)
		}
	}
	parts := []string{fmt.Sprintf("%d of %d %s supported", s.Supported, s.Units, plural(s.Units, noun))}
	if s.Units == 0 {
		parts[0] = "nothing to check"
	}
	add := func(n int, one, rest string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s %s", n, plural(n, one), rest))
		}
	}
	add(s.URLsNeverRead, "URLs", "never read")
	add(s.NumbersNotFound, "numbers", "in no source")
	add(s.DatesNotFound, "dates", "in no source")
	add(s.QuotesNotFound, "quotations", "in no source")
	add(s.Unchecked, "parts", "not checked")
	if partial {
		parts = append(parts, "partial")
	}
	s.Text = strings.Join(parts, " · ")
	return s
}

// kindNoun names a kind of unit, in the plural.
func kindNoun(k UnitKind) string {
	switch k {
	case KindItem:
		return "list items"
	case KindRow:
		return "table rows"
	case KindQuote:
		return "block quotes"
	}
	return "paragraphs"
}

// plural returns noun (a plural) for n other than 1, its singular for 1.
func plural(n int, noun string) string {
	if n == 1 {
		return strings.TrimSuffix(noun, "s")
	}
	return noun
}
