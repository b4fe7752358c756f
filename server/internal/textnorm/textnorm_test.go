package textnorm

import (
	"strings"
	"testing"
)

var cases = []struct{ in, want string }{
	{"", ""},
	{"plain\n", "plain\n"},
	{BOM + "# Title\n", "# Title\n"},
	{"a\r\nb\r\n", "a\nb\n"},
	{BOM + "a\r\n\r\nb", "a\n\nb"},
	{"lone\rcr\r", "lone\rcr\r"},
	{"\r\r\n", "\r\n"},
	{"\xef\xbb", "\xef\xbb"},
	{"x" + BOM, "x" + BOM},
}

func TestText(t *testing.T) {
	for _, c := range cases {
		if got := string(Text([]byte(c.in))); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every offset of the normalised text maps to the same byte in the original.
func TestOriginalOffsets(t *testing.T) {
	in := BOM + "ab\r\ncd\r\n\r\ne\rf\r\n"
	out, m := Map([]byte(in))
	for i := range out {
		o := m.Original(i)
		if out[i] == '\n' {
			if in[o] != '\r' && in[o] != '\n' {
				t.Errorf("offset %d (LF) maps to %q", i, in[o])
			}
			continue
		}
		if in[o] != out[i] {
			t.Errorf("offset %d (%q) maps to %d (%q)", i, out[i], o, in[o])
		}
	}
	if got := m.Original(len(out)); got != len(in) {
		t.Errorf("the end maps to %d, want %d", got, len(in))
	}
	var none *Offsets
	if none.Original(5) != 5 || !strings.EqualFold(string(Text([]byte("x"))), "x") {
		t.Error("a nil map is not the identity")
	}
}
