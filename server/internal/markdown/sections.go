package markdown

import (
	"strings"
	"unicode"

	"github.com/icm-tool/icm/server/internal/document"
)

// HeadingSpan returns the range of the section opened by d.Headings[i]: from
// its heading line to the next heading of the same or a higher level.
func (d *Doc) HeadingSpan(i int) document.Range {
	h := d.Headings[i]
	end := len(d.Src)
	for _, next := range d.Headings[i+1:] {
		if next.Level <= h.Level {
			end = next.Line.Start
			break
		}
	}
	return document.Range{Start: h.Line.Start, End: end}
}

// FindHeading returns the index in d.Headings of the first heading whose
// text matches title. Matching ignores case, surrounding punctuation and
// Markdown emphasis, and accepts a slug ("voice-rules" for "Voice Rules").
func (d *Doc) FindHeading(title string) (int, bool) {
	want := normalize(title)
	wantSlug := Slug(title)
	for i, h := range d.Headings {
		if normalize(h.Text) == want || (wantSlug != "" && Slug(h.Text) == wantSlug) {
			return i, true
		}
	}
	return -1, false
}

// Item is one level-2 section of a document, as For each uses it.
type Item struct {
	Title string
	// Body is the section's text after the heading line, trimmed.
	Body  string
	Range document.Range
}

// Items returns the document's level-2 sections in order.
func (d *Doc) Items() []Item {
	secs := d.Sections(2)
	out := make([]Item, 0, len(secs))
	for _, s := range secs {
		out = append(out, Item{
			Title: s.Heading.Text,
			Body:  strings.TrimSpace(string(d.Src[s.Body.Start:s.Body.End])),
			Range: s.Range,
		})
	}
	return out
}

func normalize(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '*', '_', '`':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), ":.\"'"))
	return strings.Join(strings.Fields(s), " ")
}

// Slug turns a heading into the anchor form editors use: lower case,
// letters and digits kept, runs of anything else become one "-".
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}
