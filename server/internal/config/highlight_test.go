package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var kindNames = map[TokenKind]string{TokenComment: "comment", TokenTable: "table", TokenKey: "key", TokenString: "string",
	TokenNumber: "number", TokenBool: "bool", TokenDate: "date", TokenOperator: "op"}

// render lists the tokens as kind:text, one per token.
func render(src string) string {
	var b []string
	for _, t := range Highlight([]byte(src)) {
		b = append(b, kindNames[t.Kind]+":"+src[t.Start:t.End])
	}
	return strings.Join(b, " ")
}

func TestHighlight(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"a table and a key", "[model]\nname = \"qwen3.5:9b\" # the default\n",
			`table:model key:name op:= string:"qwen3.5:9b" comment:# the default`},
		{"an array of tables, dotted and quoted", "[[model.servers]]\n\"odd key\".x = 1\n",
			`table:model.servers key:"odd key".x op:= number:1`},
		{"numbers, booleans, dates", "a = -3_000\nb = 1.5e3\nc = 0x1F\nd = inf\ne = true\nf = 1979-05-27 07:32:00\ng = 07:32:00\n",
			`key:a op:= number:-3_000 key:b op:= number:1.5e3 key:c op:= number:0x1F key:d op:= number:inf key:e op:= bool:true key:f op:= date:1979-05-27 07:32:00 key:g op:= date:07:32:00`},
		{"an array over lines with a comment", "models = [\n  \"a\", # first\n  'b',\n]\n",
			`key:models op:= string:"a" comment:# first string:'b'`},
		{"an inline table", "env = { A = \"1\", B = 2 }\n",
			`key:env op:= key:A op:= string:"1" key:B op:= number:2`},
		{"a multi-line string is cut at its line breaks", "doc = \"\"\"one\ntwo\"\"\"\nx = 1\n",
			`key:doc op:= string:"""one string:two""" key:x op:= number:1`},
		{"an escaped quote", `s = "a \"b\" c"` + "\n", `key:s op:= string:"a \"b\" c"`},
		{"text TOML refuses still gets what can be read", "name = \"unclosed\nnot a key\n[broken\nk = v\n",
			`key:name op:= string:"unclosed table:broken key:k op:=`},
		{"CRLF line ends", "[a]\r\nk = 1\r\n", `table:a key:k op:= number:1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := render(c.src); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestHighlightTheShippedConfigs colours every config.toml the project
// ships: every key line gets its key, and every token is well formed.
func TestHighlightTheShippedConfigs(t *testing.T) {
	files, _ := filepath.Glob("../../../workspaces/*/config.toml")
	if len(files) == 0 {
		t.Fatal("no shipped config.toml found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		toks := Highlight(src)
		checkTokens(t, src, toks)
		keys := 0
		for _, tk := range toks {
			if tk.Kind == TokenKey {
				keys++
			}
		}
		if want := len(Entries(src)) - headers(src); keys < want {
			t.Errorf("%s: %d keys coloured, %d key lines", f, keys, want)
		}
	}
}

func headers(src []byte) int {
	n := 0
	for _, e := range Entries(src) {
		if e.Header {
			n++
		}
	}
	return n
}

// checkTokens holds Highlight to its promises: in order, not
// overlapping, inside the text, one line each, never empty.
func checkTokens(t *testing.T, src []byte, toks []Token) {
	t.Helper()
	last := 0
	for _, tk := range toks {
		if tk.Start < last || tk.End <= tk.Start || tk.End > len(src) {
			t.Fatalf("token %+v after %d in %d bytes", tk, last, len(src))
		}
		if bytes.ContainsAny(src[tk.Start:tk.End], "\r\n") {
			t.Fatalf("token %+v holds a line break: %q", tk, src[tk.Start:tk.End])
		}
		last = tk.End
	}
}

func FuzzHighlight(f *testing.F) {
	for _, s := range []string{"[model]\nname = \"x\"\n", "a = [1, [2, {b = 'c'}]]", "s = '''\nx'''", "k = \"\\", "{", "[[", "a.\"b\".c = 1979-05-27T07:32:00Z"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkTokens(t, src, Highlight(src))
	})
}

// BenchmarkHighlight: a config.toml at the 64 KB cap.
func BenchmarkHighlight(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 64<<10; i++ {
		fmt.Fprintf(&buf, "[mcp.servers.s%d]\ncommand = \"icm\" # one\nargs = [\"mcp\", \"search\", %d, true]\nenv = { A = \"1\" }\n", i, i)
	}
	src := buf.Bytes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Highlight(src)
	}
}
