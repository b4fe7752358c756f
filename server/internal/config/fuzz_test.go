package config

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzPrecheck: the check before the TOML library never panics, places
// what it refuses at a line and column that match its byte offset, and
// whatever it accepts is parsed (or refused by the parser) without a
// panic.
func FuzzPrecheck(f *testing.F) {
	for _, c := range hostileConfigs() {
		if len(c.text) < 4096 {
			f.Add([]byte(c.text))
		}
	}
	f.Add([]byte("[model]\nname = \"qwen3\"\ntemperature = 0.2\n[mcp.servers.s]\ncommand = \"icm\"\nargs = [\"mcp\", \"search\"]\n"))
	f.Add([]byte("a = \"\"\"\n[[[[[[[[[[\n\"\"\"\nb = '''x'''\nc = \"\\\n\"\n"))
	f.Add([]byte("x = {a = {b = {c = {d = {e = {f = {g = {h = {i = 1}}}}}}}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Precheck("c.toml", data)
		if err == nil {
			_, _ = Parse("c.toml", data)
			_ = Lint(data, LintOptions{})
			return
		}
		var b *BoundsError
		if !errors.As(err, &b) {
			t.Fatalf("not a BoundsError: %v", err)
		}
		if b.Offset < 0 || b.Offset > len(data) {
			t.Fatalf("offset %d outside %d bytes", b.Offset, len(data))
		}
		if len(data) > MaxFileBytes {
			return // placed at the start
		}
		line := 1 + bytes.Count(data[:b.Offset], []byte("\n"))
		col := b.Offset - (bytes.LastIndexByte(data[:b.Offset], '\n') + 1) + 1
		if b.Line != line || b.Col != col {
			t.Fatalf("placed at %d:%d, the offset %d is at %d:%d", b.Line, b.Col, b.Offset, line, col)
		}
		if p := Lint(data, LintOptions{}); len(p) != 1 || p[0].Code != ProblemBounds {
			t.Fatalf("Lint does not report the bound: %+v", p)
		}
	})
}
