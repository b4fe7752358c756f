package contract

import (
	"strings"
	"testing"
)

func TestExpandBraces(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"out/{a,b}.md", "out/a.md out/b.md"},
		{"{x,y}-{1,2}.csv", "x-1.csv x-2.csv y-1.csv y-2.csv"},
		{"out/{slug}.md", ""},   // a placeholder, not a list
		{"out/{{NAME}}.md", ""}, // a setup-time variable
		{"out/{a,}.md", "out/a.md out/.md"},
	} {
		if got := strings.Join(expandBraces(c.in), " "); got != c.want {
			t.Errorf("expandBraces(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	many := strings.Repeat("{a,b}", 8) // 256 paths
	if n := len(expandBraces(many)); n != maxBraceFiles {
		t.Errorf("%d paths from 8 lists of two, want the cap %d", n, maxBraceFiles)
	}
}
