package agent

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzClean checks what Clean promises for any text: it never panics, it
// returns a piece of the input (it only cuts at the start and the end),
// and it never turns an answer into nothing.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"<think>x</think>\nHere is the outline:\n\n# A\n\n- b\n\nLet me know if you want changes.",
		"```markdown\n# A\n```go\nx\n```\n```",
		"reasoning</think>\n# Doc",
		"Sure!\n",
		"```\n```",
		"# A\n\n---\n\nI hope this helps!",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Clean(in)
		norm := strings.ReplaceAll(in, "\r\n", "\n")
		if !strings.Contains(norm, out) {
			t.Fatalf("Clean(%q) = %q, not a piece of the input", in, out)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q, invalid UTF-8", in, out)
		}
		if out == "" && !isBlank(stripThinking(norm)) {
			t.Fatalf("Clean(%q) left nothing of an answer", in)
		}
		if out != strings.TrimRight(out, " \t\n") {
			t.Fatalf("Clean(%q) = %q ends in white space", in, out)
		}
	})
}

// FuzzCutMiddle checks the cut for any text and limit: valid UTF-8 stays
// valid, the kept parts are the text's head and tail, the marker counts
// exactly what is missing, and the limit holds.
func FuzzCutMiddle(f *testing.F) {
	f.Add("line one\nline two\nline three\n", 12)
	f.Add(strings.Repeat("é", 300), 150)
	f.Add(strings.Repeat("ab\n", 1000), 200)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max > 1<<20 || max < -1 {
			t.Skip()
		}
		got, cut := cutMiddle(text, max)
		if !cut {
			if got != text {
				t.Fatalf("changed without a cut")
			}
			return
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("cutMiddle(%q, %d) = %q, invalid UTF-8", text, max, got)
		}
		m := cutMarker.FindStringSubmatchIndex(got)
		if m == nil {
			t.Fatalf("no marker in %q", got)
		}
		n, _ := strconv.Atoi(got[m[2]:m[3]])
		before, after := got[:m[0]], strings.TrimPrefix(got[m[1]:], "\n")
		if !strings.HasPrefix(text, before) {
			before = strings.TrimSuffix(before, "\n")
		}
		if !strings.HasPrefix(text, before) || !strings.HasSuffix(text, after) || len(before)+len(after) > len(text) {
			t.Fatalf("cutMiddle(%q, %d) = %q: kept parts are not the head and tail", text, max, got)
		}
		if utf8.RuneCountInString(before)+utf8.RuneCountInString(after)+n != utf8.RuneCountInString(text) {
			t.Fatalf("cutMiddle(%q, %d) = %q: the marker miscounts", text, max, got)
		}
		if max >= 2*cutReserve && utf8.RuneCountInString(got) > max {
			t.Fatalf("%d characters over the limit %d", utf8.RuneCountInString(got), max)
		}
	})
}
