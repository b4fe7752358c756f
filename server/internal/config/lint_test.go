package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	models := []string{"qwen3.5:9b", "llama3.2:3b"}
	tests := []struct {
		name   string
		src    string
		models []string
		// want: code, the text underlined, a piece of the message, the suggestion
		want [][4]string
	}{
		{"clean", "[model]\nname = \"qwen3.5:9b\"\n[workflow]\ngate = \"explicit\"\n", models, nil},
		{"model typo", "[model]\nname = \"qwen3.5:9\"   # the model\n", models,
			[][4]string{{ProblemModelMissing, `"qwen3.5:9"`, `did you mean "qwen3.5:9b"?`, "qwen3.5:9b"}}},
		{"model check skipped when the server did not answer", "[model]\nname = \"qwen3.5:9\"\n", nil, nil},
		{"latest is implied", "[model]\nname = \"llama3.2\"\n", []string{"llama3.2:latest"}, nil},
		{"unknown key", "[model]\nnam = \"x\"\n", models,
			[][4]string{{ProblemUnknownKey, "nam", `"model.nam"`, "name"}}},
		{"unknown table once", "[modl]\nname = \"x\"\ntemperature = 1\n", models,
			[][4]string{{ProblemUnknownKey, "modl", `"modl"`, "model"}}},
		{"bad enum", "[workflow]\ngate = \"rerunn\"\n", models,
			[][4]string{{ProblemBadValue, `"rerunn"`, `did you mean "rerun"?`, "rerun"}}},
		{"out of range", "[workflow]\nparallel = 0\n[model]\ntemperature = 3.5\n", models,
			[][4]string{{ProblemBadValue, "0", "from 1 to 256", ""}, {ProblemBadValue, "3.5", "0 to 2", ""}}},
		{"wrong type", "[model]\nnum_ctx = \"big\"\n", models,
			[][4]string{{ProblemSyntax, `"big"`, "model.num_ctx: the value is a string, but icm reads an integer", ""}}},
		{"bad duration", "[workflow]\ntool_timeout = \"3 minutes\"\n", models,
			[][4]string{{ProblemSyntax, `"3 minutes"`, "unable to read duration", ""}}},
		{"not toml", "[model\nname = 1\n", models,
			[][4]string{{ProblemSyntax, "\n", "end table name", ""}}},
		{"not toml after a table", "[model]\nname = \"x\"\n\n[workflow\ngate = \"rerun\"\n", models,
			[][4]string{{ProblemSyntax, "\n", "end table name", ""}}},
		{"mcp server with neither", "[mcp.servers.search]\nargs = [\"mcp\"]\n", models,
			[][4]string{{ProblemBadValue, "mcp.servers.search", "exactly one of command", ""}}},
		{"multi-line array", "[mcp.servers.s]\ncommand = \"icm\"\nargs = [\n  \"mcp\",\n  \"search\",\n]\nbogus = 1\n", models,
			[][4]string{{ProblemUnknownKey, "bogus", `"mcp.servers.s.bogus"`, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.src)
			got := Lint(data, LintOptions{Models: tt.models, Server: "the Ollama server"})
			if len(got) != len(tt.want) {
				t.Fatalf("%d problems, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				p := got[i]
				under := string(data[p.Span.Start:p.Span.End])
				if p.Code != w[0] || under != w[1] || !strings.Contains(p.Message, w[2]) || p.Suggestion != w[3] {
					t.Errorf("problem %d = %s %q %q (suggest %q), want %s %q %q (suggest %q)", i, p.Code, under, p.Message, p.Suggestion, w[0], w[1], w[2], w[3])
				}
				if p.Line == 0 {
					t.Errorf("problem %d has no line", i)
				}
			}
		})
	}
}

func TestEntryAt(t *testing.T) {
	src := []byte("# top\n[model]\nname = \"x\"\n\n[workflow]\ngate = \"rerun\"\n")
	off := strings.Index(string(src), "x\"")
	e, ok, table := EntryAt(src, off)
	if !ok || e.Path != "model.name" || table != "model" || string(src[e.Value.Start:e.Value.End]) != `"x"` {
		t.Errorf("EntryAt(value of name) = %+v %v %q", e, ok, table)
	}
	blank := strings.Index(string(src), "\n\n") + 1
	if _, ok, table := EntryAt(src, blank); ok || table != "model" {
		t.Errorf("EntryAt(blank line) = %v %q", ok, table)
	}
	if _, ok, table := EntryAt(src, len(src)); ok || table != "workflow" {
		t.Errorf("EntryAt(end) = %v %q", ok, table)
	}
}

// TestKeysCoverTheConfig keeps the documented keys in step with what
// Parse reads: every toml tag of the config structs has a Key, and every
// Key names a field.
func TestKeysCoverTheConfig(t *testing.T) {
	fields := map[string]bool{}
	var walk func(table string, typ reflect.Type)
	walk = func(table string, typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			tag := f.Tag.Get("toml")
			if tag == "" || tag == "-" {
				continue
			}
			ft := f.Type
			switch {
			case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(Duration{}):
				walk(strings.TrimPrefix(table+"."+tag, "."), ft)
				continue
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				walk(strings.TrimPrefix(table+"."+tag, ".")+".*", ft.Elem())
				continue
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(strings.TrimPrefix(table+"."+tag, "."), ft.Elem())
			}
			fields[table+"."+tag] = true
		}
	}
	walk("", reflect.TypeOf(Config{}))
	documented := map[string]bool{}
	for _, k := range Keys {
		documented[k.Path()] = true
		if !fields[k.Path()] {
			t.Errorf("Keys documents %s, which Config does not read", k.Path())
		}
		if k.Doc == "" {
			t.Errorf("%s has no doc", k.Path())
		}
	}
	for f := range fields {
		if !documented[f] {
			t.Errorf("Config reads %s, which Keys does not document", f)
		}
	}
}

// A syntax error is placed where the parser stopped, not at the last key
// it read: Parse's error and Lint's problem give the same line and column.
func TestSyntaxErrorAtItsLineAndColumn(t *testing.T) {
	data := []byte("[model]\nname = \"x\"\n\n[workflow\ngate = \"rerun\"\n")
	_, err := Parse("config.toml", data)
	if err == nil || !strings.HasPrefix(err.Error(), "config.toml:4:10: ") {
		t.Errorf("Parse: %v, want it at config.toml:4:10", err)
	}
	p := Lint(data, LintOptions{})
	if len(p) != 1 || p[0].Line != 4 || p[0].Column != 10 {
		t.Errorf("Lint: %+v, want one problem at 4:10", p)
	}
}
