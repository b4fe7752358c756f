package check

import (
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

// headingHintMax bounds how many of a file's headings a note offers.
const headingHintMax = 3

// headingHint says how to load less of src than the whole file: quote
// one of the headings it really has (its title aside), or, when it has
// none, that it cannot be scoped by heading.
func headingHint(src []byte) string {
	var names []string
	for _, h := range markdown.Parse(src).Headings {
		if h.Level == 1 || strings.TrimSpace(h.Text) == "" {
			continue
		}
		names = append(names, fmt.Sprintf("%q", h.Text))
		if len(names) == headingHintMax {
			break
		}
	}
	if len(names) == 0 {
		return "it has no headings below its title to load by"
	}
	return "to load less, quote one of its headings: " + strings.Join(names, ", ")
}
