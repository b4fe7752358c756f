package termdoc

import (
	"strings"
	"testing"
	"unicode/utf8"

	contractsschema "github.com/icm-tool/icm/contracts-schema"
)

func TestRender(t *testing.T) {
	cases := []struct {
		name, in, want string
		width          int
	}{
		{name: "headings and a filled paragraph", width: 40,
			in:   "# Title\n\nSome `code` and *emphasis* in a paragraph that is long enough to wrap twice over.\n\n## Part two\n\n### Detail\n\nText.",
			want: "TITLE\n\n    Some code and emphasis in a\n    paragraph that is long enough to\n    wrap twice over.\n\nPART TWO\n\n  Detail\n\n    Text.\n"},
		{name: "list with hanging indent", width: 40,
			in:   "- first item that goes on and on past the width\n  of the page\n- second\n\n1. one\n2. two",
			want: "    • first item that goes on and on\n      past the width of the page\n    • second\n\n    1. one\n    2. two\n"},
		{name: "code kept verbatim", width: 40,
			in:   "Run:\n\n```sh\nicm run --all    # every stage, no stopping at the gates\n```\n",
			want: "    Run:\n\n        icm run --all    # every stage, no stopping at the gates\n"},
		{name: "table wrapped to the page", width: 40,
			in:   "| check | passes when |\n| --- | --- |\n| `non-empty` | every output has text and more words here |\n| `sources` | each section cites |\n",
			want: "    check      passes when\n    ---------  -------------------------\n    non-empty  every output has text and\n               more words here\n    sources    each section cites\n"},
		{name: "comments dropped, links keep addresses", width: 60,
			in:   "<!-- for the source only -->\n\nSee [the docs](https://example.org/d) or [contract](contract.md).",
			want: "    See the docs <https://example.org/d> or contract.\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render([]byte(tc.in), tc.width); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestGrammarFitsTheWidth renders the contract reference: every line but
// a code block's fits the page and none ends in spaces.
func TestGrammarFitsTheWidth(t *testing.T) {
	for _, width := range []int{60, 80, 100} {
		out := Render([]byte(contractsschema.Grammar), width)
		for i, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, " ") {
				t.Errorf("width %d, line %d ends in spaces: %q", width, i+1, line)
			}
			code := strings.HasPrefix(line, strings.Repeat(" ", bodyIndent+codeIndent))
			if n := utf8.RuneCountInString(line); n > width && !code {
				t.Errorf("width %d, line %d is %d wide: %q", width, i+1, n, line)
			}
		}
		for _, want := range []string{"FOR EACH", "VERIFY (OPTIONAL)", "• The title is the first # heading"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %q missing", width, want)
			}
		}
	}
}

func FuzzRender(f *testing.F) {
	f.Add("# T\n\n- a\n  - b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n", 40)
	f.Add("> quote\n\n```\ncode\n```\n\n1. x\n\n   para\n", 10)
	f.Fuzz(func(t *testing.T, src string, width int) {
		out := Render([]byte(src), width%200)
		if !strings.HasSuffix(out, "\n") {
			t.Fatalf("output does not end in a newline: %q", out)
		}
	})
}
