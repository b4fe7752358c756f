package markdown

import "strings"

// Fence puts text in a fenced code block with info string lang, its fence
// longer than any run of backticks inside, so no text can close it early.
func Fence(lang, text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + text + "\n" + f + "\n"
}
