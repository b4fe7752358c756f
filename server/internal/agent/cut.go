package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// cutReserve is the room kept for the cut marker.
const cutReserve = 64

// cutMiddle shortens text to about max characters (runes) by keeping its
// head and tail around a marker saying how much was cut: the start of a
// result says what it is and the end often holds the conclusion (or the
// closing line of an untrusted-data fence). The cut points move to a line
// boundary when one is near, so the model does not see half a line.
// The result is at most max characters whenever max >= 2*cutReserve.
func cutMiddle(text string, max int) (string, bool) {
	n := utf8.RuneCountInString(text)
	if max <= 0 || n <= max {
		return text, false
	}
	reserve := cutReserve
	if max < 2*reserve {
		reserve = max / 2
	}
	keep := max - reserve
	headRunes := keep / 2
	tailRunes := keep - headRunes

	headEnd := byteOffset(text, headRunes)
	tailStart := byteOffset(text, n-tailRunes)
	// Snap to a line end within the last fifth of the head and a line
	// start within the first fifth of the tail.
	// text[headEnd] is looked at too, so a head that ends just before a
	// line end takes it and the marker starts a line without a blank one.
	if i := strings.LastIndexByte(text[:headEnd+1], '\n'); i >= 0 && headEnd-i <= (headEnd+4)/5 {
		headEnd = i + 1
	}
	if i := strings.IndexByte(text[tailStart:], '\n'); i >= 0 && i < (len(text)-tailStart+4)/5 {
		tailStart += i + 1
	}
	head, tail := text[:headEnd], text[tailStart:]
	cut := n - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	sep := "\n"
	if strings.HasSuffix(head, "\n") || head == "" {
		sep = ""
	}
	return head + sep + fmt.Sprintf("[... %d characters cut ...]", cut) + "\n" + tail, true
}

// byteOffset returns the byte index of the rune number i in s.
func byteOffset(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}
