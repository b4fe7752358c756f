package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var cutMarker = regexp.MustCompile(`\[\.\.\. (\d+) characters cut \.\.\.\]`)

func TestCutMiddle(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "line %04d of the page\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name       string
		text       string
		max        int
		wantCut    bool
		head, tail string // what the kept text must start and end with
		lineSnap   bool   // cut points must fall on line boundaries
	}{
		{"short text unchanged", "hello", 10, false, "hello", "hello", false},
		{"exactly max unchanged", strings.Repeat("a", 200), 200, false, "a", "a", false},
		{"long text keeps head and tail", "START" + strings.Repeat("x", 10000) + "END", 1000, true, "START", "END", false},
		{"lines snap to boundaries", lines(2000), 2000, true, "line 0000", "line 1999 of the page\n", true},
		{"multibyte runes are not split", strings.Repeat("é", 5000), 500, true, "é", "é", false},
		{"untrusted fence keeps both markers", "<<<UNTRUSTED-1\n" + lines(500) + "UNTRUSTED-1>>>", 1200, true, "<<<UNTRUSTED-1\n", "UNTRUSTED-1>>>", false},
		{"tiny max still marks the cut", strings.Repeat("z", 100), 10, true, "z", "z", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := cutMiddle(tc.text, tc.max)
			if cut != tc.wantCut {
				t.Fatalf("cut = %v, want %v", cut, tc.wantCut)
			}
			if !strings.HasPrefix(got, tc.head) || !strings.HasSuffix(got, tc.tail) {
				t.Errorf("kept %q...%q, want head %q and tail %q", head(got), tail(got), tc.head, tc.tail)
			}
			if !utf8.ValidString(got) {
				t.Errorf("result is not valid UTF-8")
			}
			if !cut {
				if got != tc.text {
					t.Errorf("text changed without a cut")
				}
				return
			}
			m := cutMarker.FindStringSubmatchIndex(got)
			if m == nil {
				t.Fatalf("no cut marker in %q", got)
			}
			n, _ := strconv.Atoi(got[m[2]:m[3]])
			// The marker starts a line: the newline before it is the head's
			// own when the head ends a line, else one added to it.
			before, after := got[:m[0]], strings.TrimPrefix(got[m[1]:], "\n")
			if !strings.HasPrefix(tc.text, before) {
				before = strings.TrimSuffix(before, "\n")
			}
			kept := utf8.RuneCountInString(before) + utf8.RuneCountInString(after)
			if got[:m[0]] != "" && !strings.HasSuffix(got[:m[0]], "\n") {
				t.Errorf("marker does not start a line")
			}
			if !strings.HasPrefix(tc.text, before) || !strings.HasSuffix(tc.text, after) {
				t.Fatalf("kept parts are not the text's head and tail")
			}
			if kept+n != utf8.RuneCountInString(tc.text) {
				t.Errorf("marker says %d cut, but %d of %d characters were kept", n, kept, utf8.RuneCountInString(tc.text))
			}
			if tc.max >= 2*cutReserve && utf8.RuneCountInString(got) > tc.max {
				t.Errorf("%d characters, over the limit of %d", utf8.RuneCountInString(got), tc.max)
			}
			if tc.lineSnap && (!strings.HasSuffix(got[:m[0]], "\n") || !strings.HasPrefix(after, "line ")) {
				t.Errorf("cut points are not on line boundaries: %q | %q", tail(got[:m[0]]), head(after))
			}
		})
	}
}

func head(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

func tail(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}

func TestCallKey(t *testing.T) {
	tests := []struct {
		name string
		a, b map[string]any
		same bool
	}{
		{"key order", map[string]any{"q": "go", "n": 5.0}, map[string]any{"n": 5.0, "q": "go"}, true},
		{"nested key order", map[string]any{"o": map[string]any{"x": 1.0, "y": []any{"a"}}}, map[string]any{"o": map[string]any{"y": []any{"a"}, "x": 1.0}}, true},
		{"nil and empty", nil, map[string]any{}, true},
		{"different value", map[string]any{"q": "go"}, map[string]any{"q": "rust"}, false},
		{"int and float of the same number", map[string]any{"n": 5}, map[string]any{"n": 5.0}, true},
		{"extra key", map[string]any{"q": "go"}, map[string]any{"q": "go", "n": 1.0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := callKey("search", tc.a) == callKey("search", tc.b); got != tc.same {
				t.Errorf("same = %v, want %v (%q vs %q)", got, tc.same, callKey("search", tc.a), callKey("search", tc.b))
			}
		})
	}
	if callKey("a", map[string]any{"q": "x"}) == callKey("b", map[string]any{"q": "x"}) {
		t.Errorf("different tools share a key")
	}
}

func TestRepeatGuard(t *testing.T) {
	var g repeatGuard
	seq := []string{"a", "a", "b", "b", "b", "a", "a"}
	want := []int{1, 2, 1, 2, 3, 1, 2}
	for i, k := range seq {
		if got := g.add(k); got != want[i] {
			t.Errorf("call %d (%s): count %d, want %d", i, k, got, want[i])
		}
	}
}
