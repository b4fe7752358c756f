package markdown

import "testing"

// A comment goes with the line it stood alone on; one inside a sentence
// leaves the sentence; one shown as an example in code stays.
func TestUncomment(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no notes here\n", "no notes here\n"},
		{"<!-- a note -->\nText.\n", "Text.\n"},
		{"Keep <!-- not this --> this.\n", "Keep  this.\n"},
		{"One.\n\n<!--\nseveral\nlines\n-->\n\nTwo.\n", "One.\n\n\nTwo.\n"},
		{"Write `<!-- x -->` as a marker.\n", "Write `<!-- x -->` as a marker.\n"},
		{"```html\n<!-- kept -->\n```\n", "```html\n<!-- kept -->\n```\n"},
		{"- item <!-- aside -->\n- next\n", "- item \n- next\n"},
		{"<!-- open\nnever closed\n", ""},
	} {
		if got := Uncomment(tc.in); got != tc.want {
			t.Errorf("Uncomment(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
