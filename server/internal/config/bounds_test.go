package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostileConfigs are config texts the TOML library is slow on (nested
// inline tables: 12 KB took it 2.8 s and 300 MB), each with where its
// problem must be reported.
func hostileConfigs() []struct {
	name, text string
	line, col  int
	says       string
} {
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	return []struct {
		name, text string
		line, col  int
		says       string
	}{
		{"inline tables", "[model]\nname = \"x\"\na = " + nest("{b = ", "}", 2000) + "\n", 3, 5 + 5*8, "nested more than 8"},
		{"arrays", "[workflow]\nx = " + nest("[", "]", 3000) + "\n", 2, 5 + 8, "nested more than 8"},
		{"a dotted header", "[" + strings.Repeat("a.", 3000) + "z]\nk = 1\n", 1, 18, "dotted key of more than 8"},
		{"a dotted key", "[model]\n" + strings.Repeat("a . ", 3000) + "z = 1\n", 2, 33, "dotted key of more than 8"},
		{"a large file", manyKeys(12000), 1, 1, "at most 64 KB"},
		{"many keys", manyKeys(3000), 1025, 7, "more than 1024 keys and tables"},
		{"many tables", strings.Repeat("[[mcp.x]]\n", 2000), 1025, 1, "more than 1024 keys and tables"},
	}
}

// TestParseRefusesWhatTheParserIsSlowOn: each hostile text is an error
// at its line and column, from the check made before the TOML library
// sees the text, and Lint (the editor's and check's reading) places it
// as one problem. Failed before: each parsed after seconds (or was
// refused by the library itself only past its own limits), with no
// error.
func TestParseRefusesWhatTheParserIsSlowOn(t *testing.T) {
	for _, c := range hostileConfigs() {
		_, err := Parse("ws/config.toml", []byte(c.text))
		want := "ws/config.toml:" + strconv.Itoa(c.line) + ":" + strconv.Itoa(c.col) + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Parse says %v, want %q...%q", c.name, err, want, c.says)
		}
		probs := Lint([]byte(c.text), LintOptions{})
		if len(probs) != 1 || !probs[0].Error || probs[0].Line != c.line || !strings.Contains(probs[0].Message, c.says) {
			t.Errorf("%s: Lint says %+v", c.name, probs)
			continue
		}
		if p := probs[0]; p.Span.Start < 0 || p.Span.End > len(c.text) || p.Span.End <= p.Span.Start {
			t.Errorf("%s: the problem's span %+v is not in the text", c.name, p.Span)
		}
	}
}

// manyKeys is n distinct top-level keys.
func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("k" + strconv.Itoa(i) + " = 1\n")
	}
	return b.String()
}

// TestPrecheckAcceptsWhatIcmReads: the shipped workspaces' settings and
// every shape icm's keys take pass the bounds and parse as before.
func TestPrecheckAcceptsWhatIcmReads(t *testing.T) {
	files, err := filepath.Glob("../../../workspaces/*/config.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped config.toml: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := Precheck(f, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	deepest := `
[model]
servers = [{ url = "http://127.0.0.1:11434", slots = 2 }, { url = "http://127.0.0.1:11435" }]
[mcp.servers."my.server"]
command = "x"
[mcp.servers."my.server".env]
A = "x.y.z"
[mcp.servers.b]
command = "icm"
args = ["mcp", "search", 'a.b.c.d.e.f.g.h.i.j']
headers = { "X-A" = "1", 'b' = """
multi ] } [[ line
""" }
env = { SEARXNG_URL = "http://localhost:8090" } # a comment with [[[[[[[[[[ and a.b.c.d.e.f.g.h.i
[[[[x]]]]
`
	if err := Precheck("config.toml", []byte(deepest)); err != nil {
		t.Errorf("a config within the bounds: %v", err)
	}
	if _, err := Parse("config.toml", []byte(strings.Replace(deepest, "[[[[x]]]]\n", "", 1))); err != nil {
		t.Errorf("a config within the bounds does not parse: %v", err)
	}
}

func BenchmarkLintManyKeys(b *testing.B) {
	text := []byte(manyKeys(MaxEntries))
	if len(text) > MaxFileBytes {
		b.Fatalf("%d bytes", len(text))
	}
	for b.Loop() {
		Lint(text, LintOptions{})
	}
}
