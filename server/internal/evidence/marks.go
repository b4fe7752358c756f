package evidence

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/evidence/urls"
)

// facts are what the sources hold that marks look for.
type facts struct {
	numbers map[string]bool
	dates   map[string]bool
	// texts are each source's words, lower-cased and stemmed, joined by
	// single spaces with a space at each end: quotations are looked for
	// in them.
	texts []string
	// read holds the normalised URLs the run read or was given.
	read map[string]bool
}

func newFacts() *facts {
	return &facts{numbers: map[string]bool{}, dates: map[string]bool{}, read: map[string]bool{}}
}

// addURLs records the URLs in text as read.
func (f *facts) addURLs(text string) {
	for _, u := range urls.Find(text) {
		f.read[urls.Normalize(u.Raw)] = true
	}
}

// addText records what a source's text holds: its URLs, numbers (and
// number words), dates, and its words for quotations.
func (f *facts) addText(text string, ws []word) {
	f.addURLs(text)
	var b strings.Builder
	b.WriteByte(' ')
	for _, w := range ws {
		if isNumber(w) {
			f.numbers[w.term] = true
		} else if v, ok := numberWord(strings.ToLower(text[w.start:w.end])); ok {
			f.numbers[v] = true
		}
		b.WriteString(w.term)
		b.WriteByte(' ')
	}
	f.texts = append(f.texts, b.String())
	for _, d := range findDatesIn(text, ws) {
		for _, k := range dateKeys(d) {
			f.dates[k] = true
		}
	}
}

// rawMark is a mark before its place in the output as given is known.
type rawMark struct {
	kind       MarkKind
	start, end int
	msg        string
}

// quotation matches text in double quotes, straight or curly, on one line.
var quotation = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"\n]{1,500})"|“([^”\n]{1,500})”`)
})

// minQuoteWords is the fewest words a quotation needs to be looked for:
// one or two quoted words are a name or a term, not a quotation.
const minQuoteWords = 3

// marks returns what in text rests on nothing. Each thing is looked for
// once: a URL's digits are no number, a date's no number.
func (f *facts) marks(text string) []rawMark {
	var out []rawMark
	masked := []byte(text)
	blank := func(a, b int) {
		for i := a; i < b; i++ {
			masked[i] = ' '
		}
	}
	for _, u := range urls.Find(text) {
		blank(u.Start, u.End)
		if !f.read[urls.Normalize(u.Raw)] {
			out = append(out, rawMark{MarkURL, u.Start, u.End,
				fmt.Sprintf("%s is cited, but no tool call of this run fetched it and no input contains it: check that the page says this, or cite one that was read", u.Raw)})
		}
	}
	ws := collect(string(masked))
	for _, d := range findDatesIn(string(masked), ws) {
		blank(d.start, d.end)
		if !f.anyDate(d.keys) {
			out = append(out, rawMark{MarkDate, d.start, d.end,
				fmt.Sprintf("the date %q is in no source: check it against the sources, or name where it comes from", text[d.start:d.end])})
		}
	}
	for _, w := range collect(string(masked)) {
		if isNumber(w) && !f.numbers[w.term] {
			out = append(out, rawMark{MarkNumber, w.start, w.end,
				fmt.Sprintf("the number %s is in no source: check it against the sources, or name where it comes from", text[w.start:w.end])})
		}
	}
	for _, loc := range quotation().FindAllStringSubmatchIndex(text, -1) {
		a, b := loc[2], loc[3]
		if a < 0 {
			a, b = loc[4], loc[5]
		}
		if q, n := quoteKey(text[a:b]); n >= minQuoteWords && !f.quoted(q) {
			out = append(out, rawMark{MarkQuote, loc[0], loc[1],
				fmt.Sprintf("the quotation %s is in no source word for word: quote a source exactly, or do not quote", text[loc[0]:loc[1]])})
		}
	}
	return out
}

func (f *facts) anyDate(keys []string) bool {
	for _, k := range keys {
		if f.dates[k] {
			return true
		}
	}
	return false
}

func (f *facts) quoted(q string) bool {
	for _, t := range f.texts {
		if strings.Contains(t, q) {
			return true
		}
	}
	return false
}

// quoteKey returns a quotation's words as facts.texts holds them, with a
// space at each end, and how many words it has.
func quoteKey(s string) (string, int) {
	var b strings.Builder
	n := 0
	b.WriteByte(' ')
	words(s, func(w word) {
		b.WriteString(w.term)
		b.WriteByte(' ')
		n++
	})
	return b.String(), n
}

func collect(text string) []word {
	var ws []word
	words(text, func(w word) { ws = append(ws, w) })
	return ws
}
