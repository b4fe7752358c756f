package config

import (
	"errors"
	"strings"
	"testing"
)

// SetValue edits the value where it is written and nothing else. The
// cases the extension's own line scanner got wrong come first: a dotted
// key it did not see, a line inside a multi-line string it took for the
// key (and rewrote the system prompt).
func TestSetValue(t *testing.T) {
	cases := []struct {
		name, src, table, key string
		value                 any
		want                  string
		line                  int
	}{
		{"a dotted key at the top", "model.name = \"a\"\n", "model", "name", "b", "model.name = \"b\"\n", 1},
		{"a line inside a multi-line string is no key",
			"[model]\nsystem = \"\"\"\nname = \"a\"\n\"\"\"\nname = \"c\"\n", "model", "name", "b",
			"[model]\nsystem = \"\"\"\nname = \"a\"\n\"\"\"\nname = \"b\"\n", 5},
		{"the comment after the value stays", "# Settings\n[model]\nname = \"qwen3.5:9\"   # the typo\ntemperature = 0.1\n\n[mcp.servers.x]\nname = \"qwen3.5:9\"\n",
			"model", "name", "qwen3.5:9b",
			"# Settings\n[model]\nname = \"qwen3.5:9b\"   # the typo\ntemperature = 0.1\n\n[mcp.servers.x]\nname = \"qwen3.5:9\"\n", 3},
		{"literal quotes and spaces stay", "[model]\n  name='a'\n", "model", "name", "b", "[model]\n  name='b'\n", 2},
		{"a value literal quotes cannot hold is quoted", "[model]\nname = 'a'\n", "model", "name", "it's", "[model]\nname = \"it's\"\n", 2},
		{"CRLF lines keep their endings", "[model]\r\nname = \"a\"\r\n", "model", "name", "b", "[model]\r\nname = \"b\"\r\n", 2},
		{"a quoted key", "[model]\n\"name\" = \"a\"\n", "model", "name", "b", "[model]\n\"name\" = \"b\"\n", 2},
		{"a new key ends its table, above the next table's comment",
			"[model]\nname = \"a\"\n\n# Tools\n[mcp]\n", "model", "temperature", 0.2,
			"[model]\nname = \"a\"\ntemperature = 0.2\n\n# Tools\n[mcp]\n", 3},
		{"a new key in the last table, whose comment is its own", "[vars]\nA = \"1\"\n# the end\n\n", "vars", "B", "x\"y",
			"[vars]\nA = \"1\"\n# the end\nB = \"x\\\"y\"\n\n", 4},
		{"a new key in a file without a last newline", "[model]\nname = \"a\"", "model", "think", true, "[model]\nname = \"a\"\nthink = true\n", 3},
		{"a new table at the end", "[model]\nname = \"a\"\n\n\n", "workflow", "gate", "explicit", "[model]\nname = \"a\"\n\n[workflow]\ngate = \"explicit\"\n", 5},
		{"a new table in an empty file", "", "model", "name", "a", "[model]\nname = \"a\"\n", 2},
		{"a top-level key goes below the file's opening comment", "# top\n\n[model]\nname = \"a\"\n", "", "x", int64(3), "# top\nx = 3\n\n[model]\nname = \"a\"\n", 2},
		{"a whole JSON number is an integer", "[model]\nnum_ctx = 4096\n", "model", "num_ctx", float64(8192), "[model]\nnum_ctx = 8192\n", 2},
		{"a key with a dot in its name is quoted", "[vars]\n", "vars", "a.b", "c", "[vars]\n\"a.b\" = \"c\"\n", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := SetValue([]byte(c.src), c.table, c.key, c.value)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(e.Apply([]byte(c.src))); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
			if e.Line != c.line {
				t.Errorf("line %d, want %d", e.Line, c.line)
			}
		})
	}
}

// What a line edit cannot do is refused with the line and the reason,
// never written half-way.
func TestSetValueRefuses(t *testing.T) {
	cases := []struct {
		name, src, table, key string
		value                 any
		says                  string
		line                  int
	}{
		{"not TOML", "[model\nname = \"a\"\n", "model", "name", "b", "does not read as TOML", 2},
		{"an inline table", "model = { name = \"a\" }\n", "model", "name", "b", "cannot be edited on its own line", 1},
		{"a value over several lines", "[model]\nname = \"\"\"\na\n\"\"\"\n", "model", "name", "b", "cannot be edited on its own line", 2},
		{"an array of tables", "[[model.servers]]\nurl = \"a\"\n", "model.servers", "url", "b", "array of tables", 1},
		{"a value TOML has no type for", "", "model", "name", []string{"a"}, "not []string", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := SetValue([]byte(c.src), c.table, c.key, c.value)
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want an *EditError", err)
			}
			if !strings.Contains(ee.Msg, c.says) || ee.Line != c.line {
				t.Errorf("%d: %s; want line %d saying %q", ee.Line, ee.Msg, c.line, c.says)
			}
		})
	}
}

func TestValueOf(t *testing.T) {
	src := []byte("model.name = \"a\"\n[mcp.servers.x]\nname = \"b\"\n")
	if v, ok := ValueOf(src, "model", "name"); !ok || v != "a" {
		t.Errorf("model.name = %v %v", v, ok)
	}
	if v, ok := ValueOf(src, "mcp.servers.x", "name"); !ok || v != "b" {
		t.Errorf("mcp.servers.x.name = %v %v", v, ok)
	}
	if _, ok := ValueOf(src, "model", "think"); ok {
		t.Error("an unset key is set")
	}
	if _, ok := ValueOf([]byte("[model"), "model", "name"); ok {
		t.Error("a file that does not read sets a key")
	}
}

// Whatever the file, an edit SetValue makes reads back the value and
// the rest as it was (SetValue checks that itself; this checks that the
// check holds, from the outside).
func FuzzSetValue(f *testing.F) {
	f.Add("[model]\nname = \"a\" # c\n", "model", "name", "b")
	f.Add("a.b = 1\n[x]\n\"y\" = 'z'\n", "x", "y", "it's")
	f.Fuzz(func(t *testing.T, src, table, key, value string) {
		if key == "" || strings.Contains(table, "..") || strings.HasPrefix(table, ".") || strings.HasSuffix(table, ".") {
			return
		}
		e, err := SetValue([]byte(src), table, key, value)
		if err != nil {
			return
		}
		if got, ok := ValueOf(e.Apply([]byte(src)), table, key); !ok || got != value {
			t.Fatalf("%q in %q: reads %q (%v)\n%s", key, table, got, ok, e.Apply([]byte(src)))
		}
	})
}
