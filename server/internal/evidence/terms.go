package evidence

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// word is one word of a text: its form for matching and where it is.
type word struct {
	// term is the word lower-cased and stemmed; a number is written
	// without thousands separators.
	term       string
	start, end int
	// stop is set for stop words: they are kept for n-grams' positions
	// but carry no weight.
	stop bool
}

// words splits text into words: runs of letters and digits. Apostrophes
// and hyphens split words ("Miller's" gives "miller", "rack-and-cloth"
// three words); a number keeps its separators ("1,850" and "7.5" are one
// word each). Single letters are dropped: they are what an apostrophe
// leaves ("s", "t") or list labels.
func words(text string, fn func(w word)) {
	stops := stopWords()
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r >= '0' && r <= '9':
			end := numberEnd(text, i)
			fn(word{term: plainNumber(text[i:end]), start: i, end: end})
			i = end
		case unicode.IsLetter(r):
			end := i + size
			for end < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[end:])
				if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				end += s2
			}
			w := strings.ToLower(text[i:end])
			if utf8.RuneCountInString(w) > 1 {
				fn(word{term: stem(w), start: i, end: end, stop: stops[w]})
			}
			i = end
		default:
			i += size
		}
	}
}

// numberEnd returns the end of the number starting at i: digits, with
// single commas or dots between digits ("1,850", "7.5", "127.0.0.1").
func numberEnd(text string, i int) int {
	end := i
	for end < len(text) {
		c := text[end]
		switch {
		case c >= '0' && c <= '9':
			end++
		case (c == ',' || c == '.') && end+1 < len(text) && text[end+1] >= '0' && text[end+1] <= '9' && end > i:
			end++
		default:
			return end
		}
	}
	return end
}

// plainNumber writes a number the way every source's copy of it is
// written for matching: thousands separators dropped ("1,850" as "1850").
func plainNumber(s string) string {
	if v, ok := normalNumber(s); ok {
		return v
	}
	return s
}

// stopWords are English function words and the commonest verbs: they say
// little about what a paragraph claims, and every source has them.
// They are a table built on first use, not at start-up.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
		because been before being below between both but by can could did do does doing done down during each
		either else even ever every few for from further get gets got had has have having he her here hers herself
		him himself his how however if in into is it its itself just least less let like made make makes many may
		me might more most much must my myself neither no nor not now of off on once one only or other others our
		ours ourselves out over own per rather same shall she should since so some such than that the their theirs
		them themselves then there these they this those though through thus to too under until up upon us very
		was we were what when where whether which while who whom whose why will with within without would yet you
		your yours yourself yourselves`) {
		m[w] = true
	}
	return m
})
