package trust

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable is s with every control character but newline and tab shown
// as an escape (\x1b, \u202e): what trust lists comes from the
// workspace, and a terminal or an editor must show it as written, never
// let it move the cursor, rewrite a line or hide a word.
func Printable(s string) string {
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidden(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// hidden reports whether r would not show as itself: a control
// character, or a format character such as a bidirectional override.
func hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
}
