// Package urls finds the web addresses a text cites and says when two
// spellings name one page. It is the one URL finder of icm: the Verify
// checks `sources` and `sources-from-tools` and the evidence of a review
// both read URLs through it, so an address one of them sees the other sees
// too. It imports only the standard library.
package urls

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Span is one URL found in a text: as written, and its byte range there.
type Span struct {
	// Raw is the URL as the text spells it, trailing punctuation left off.
	Raw string
	// Start and End are byte offsets of Raw in the text searched.
	Start, End int
}

// inText matches an http or https URL up to a character that cannot be
// part of one in prose or Markdown (a space, a bracket, a quote). It is
// compiled on first use, not at start-up.
var inText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("https?://[^\\s<>()\\[\\]\"'`{}|\\\\^]+")
})

// trailing is punctuation that ends a sentence or a Markdown construct
// after a URL rather than belonging to it.
const trailing = ".,;:!?*_~"

// Find returns the http and https URLs in text, in order.
func Find(text string) []Span {
	var out []Span
	for _, loc := range inText().FindAllStringIndex(text, -1) {
		raw := strings.TrimRight(text[loc[0]:loc[1]], trailing)
		if len(raw) > len("https://") {
			out = append(out, Span{Raw: raw, Start: loc[0], End: loc[0] + len(raw)})
		}
	}
	return out
}

// Normalize makes two spellings of one page compare equal: the scheme and
// host in lower case, no fragment, no default port, no trailing slash.
func Normalize(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.TrimRight(strings.ToLower(raw), "/")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		u.Host = u.Hostname()
	}
	u.Fragment, u.RawFragment = "", ""
	return strings.TrimRight(u.String(), "/")
}
