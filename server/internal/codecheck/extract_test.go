package codecheck

import (
	"strings"
	"testing"
)

const article = "# T\n\nText.\n\n```python\nprint(1)\nx = 2\n```\n\n- item\n\n  ```go no-run\n  package main\n  ```\n\n> ```py\n> print('q')\n> ```\n\n```\nplain\n```\n\n```python\n```\n"

func TestExtract(t *testing.T) {
	bs := Extract([]byte(article))
	want := []struct {
		lang  string
		noRun bool
		code  string
		line  int
	}{
		{Python, false, "print(1)\nx = 2\n", 5},
		{Go, true, "package main\n", 12},
		{Python, false, "print('q')\n", 16},
		{"", false, "plain\n", 20},
		{Python, false, "", 24},
	}
	if len(bs) != len(want) {
		t.Fatalf("got %d blocks: %+v", len(bs), bs)
	}
	for i, w := range want {
		b := bs[i]
		if b.Lang != w.lang || b.NoRun != w.noRun || b.Code != w.code || b.Line != w.line || b.Index != i+1 {
			t.Errorf("block %d = %+v, want %+v", i+1, b, w)
		}
	}
}

func TestReplaceKeepsStructure(t *testing.T) {
	src := []byte(article)
	for i := range Extract(src) {
		b := Extract(src)[i]
		code := "# fixed " + b.Lang + "\nprint('ok')\n```\n"
		src = Replace(src, b, code)
		got := Extract(src)
		if len(got) != 5 {
			t.Fatalf("after replacing block %d there are %d blocks:\n%s", i+1, len(got), src)
		}
		if !strings.HasPrefix(got[i].Code, "# fixed "+b.Lang+"\nprint('ok')\n") || got[i].Info != b.Info {
			t.Errorf("block %d after replace: %+v\n%s", i+1, got[i], src)
		}
	}
	if !strings.Contains(string(src), "- item\n\n  ```go no-run\n  # fixed go\n") || !strings.Contains(string(src), "> # fixed python\n") {
		t.Errorf("prefixes lost:\n%s", src)
	}
}

func TestLanguage(t *testing.T) {
	for _, tc := range []struct {
		info, lang string
		noRun      bool
	}{
		{"python", Python, false}, {"Python no-run", Python, true}, {"py {.no-run}", Python, true},
		{"golang", Go, false}, {"go norun", Go, true}, {"sh", "", false}, {"", "", false},
	} {
		if l, n := language(tc.info); l != tc.lang || n != tc.noRun {
			t.Errorf("language(%q) = %q %v", tc.info, l, n)
		}
	}
}

func FuzzExtractReplace(f *testing.F) {
	f.Add(article)
	f.Add("```go\nfunc main() {}\n```")
	f.Add("* ```py\n  x\n  ```\n")
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		bs := Extract(src)
		for _, b := range bs {
			out := Replace(src, b, "x = 1\n")
			if n := len(Extract(out)); n != len(bs) {
				t.Skip() // exotic nesting may merge blocks; never panic
			}
		}
	})
}
