package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é, €, 日本\n\tindented":         "plain text, é, €, 日本\n\tindented",
		"\x1b]8;;http://evil\x07click\x1b]8;;\x07": `\x1b]8;;http://evil\x07click\x1b]8;;\x07`,
		"\x1b]52;c;cHduZWQ=\x07":                   `\x1b]52;c;cHduZWQ=\x07`,
		"\x1b[2J\x1b[H":                            `\x1b[2J\x1b[H`,
		"line\r\nnext\rover":                       "line\r\nnext\\rover",
		"csi \u009b31m and a lone \x9b byte":       `csi \u009b31m and a lone \x9b byte`,
		"nul \x00 del \x7f":                        `nul \x00 del \x7f`,
		"latin-1 \xe9t\xe9":                        "latin-1 \xe9t\xe9",
		"ends in cr\r":                             `ends in cr\r`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// safe reports whether s holds no control character but newlines, tabs
// and the CR of a CRLF.
func safe(s string) bool {
	for i, r := range s {
		switch {
		case r == '\n', r == '\t':
		case r == '\r':
			if !strings.HasPrefix(s[i:], "\r\n") {
				return false
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return false
		case r == utf8.RuneError && len(s) > i && s[i] >= 0x80 && s[i] <= 0x9f:
			return false
		}
	}
	return true
}

// FuzzWriter: whatever is written, however it is split between writes,
// the Writer writes what String gives for the whole, and that holds no
// control character but newlines, tabs and CRLF.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("a\x1b]52;c;x\x07b\r\n\u009b€"), uint8(3))
	f.Add([]byte("\r"), uint8(1))
	f.Add([]byte("\xe2\x82"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step%16) + 1
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(data); i += n {
			if _, err := w.Write(data[i:min(i+n, len(data))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := String(string(data)); out.String() != want {
			t.Fatalf("in writes of %d: %q, whole: %q", n, out.String(), want)
		}
		if !safe(out.String()) {
			t.Fatalf("a control character got through: %q", out.String())
		}
	})
}

func TestRawAndNewWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	if NewWriter(w) != w || Raw(w) != &out || Raw(&out) != &out {
		t.Error("a Writer is wrapped twice, or Raw does not unwrap")
	}
	_, _ = w.Write([]byte("a\r"))
	_, _ = Raw(w).Write([]byte("{}"))
	if out.String() != `a\r{}` {
		t.Errorf("Raw does not write what was held back first: %q", out.String())
	}
}

// Bidirectional overrides and isolates reorder what follows them on the
// screen (a file name that reads "txt.exe" but is "exe.txt"); they are
// shown as escapes, while other non-ASCII text passes.
func TestBidiControlsAreEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"report\u202etxt.md":                   `report\u202etxt.md`,
		"a\u2066b\u2069":                       `a\u2066b\u2069`,
		"\u202a\u202b\u202c\u202d\u2067\u2068": `\u202a\u202b\u202c\u202d\u2067\u2068`,
		"Chaîne — naïve ✓":                     "Chaîne — naïve ✓",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
