package export

import (
	"regexp"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
)

var (
	mdLink  = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)
	bareURL = regexp.MustCompile(`https?://[^\s)\]>"']+`)
)

// SourcesFrom reads titles for URLs from a sources file: a Markdown link's
// text, or else the heading of the section a bare URL appears in.
func SourcesFrom(md []byte) []Source {
	var out []Source
	seen := map[string]bool{}
	add := func(u, title string) {
		u = strings.TrimRight(u, ".,;:")
		if k := normURL(u); !seen[k] {
			seen[k] = true
			out = append(out, Source{URL: u, Title: strings.TrimSpace(title)})
		}
	}
	doc := markdown.Parse(md)
	secs := doc.Sections(2)
	titleAt := func(off int) string {
		for _, s := range secs {
			if off >= s.Range.Start && off < s.Range.End {
				return s.Heading.Text
			}
		}
		return ""
	}
	text := string(md)
	for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[4]:m[5]], text[m[2]:m[3]])
	}
	for _, m := range bareURL.FindAllStringIndex(text, -1) {
		add(text[m[0]:m[1]], titleAt(m[0]))
	}
	return out
}
