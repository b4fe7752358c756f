package export

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

func TestHighlight(t *testing.T) {
	cases := []struct {
		lang, text string
		want       []string // spans as class:text
	}{
		{"go", "package main\n\n// Say hi.\nfunc main() { x := 0x1F; s := \"a<b\"; var ok bool = nil == nil; _ = `raw` }\n",
			[]string{"k:package", "c:// Say hi.", "k:func", "m:0x1F", `s:"a<b"`, "k:var", "t:bool", "l:nil", "l:nil", "s:`raw`"}},
		{"python", "@app.route('/')\ndef f(x=None):\n    # note\n    return rb'\\d' + f\"{x}\" + '''a\n'b''' + 3.5e-2\n",
			[]string{"d:@app.route", "s:'/'", "k:def", "l:None", "c:# note", "k:return", `s:rb'\d'`, `s:f"{x}"`, "s:'''a\n'b'''", "m:3.5e-2"}},
		{"bash", "if [ -n \"$X\" ]; then echo 'a#b' # done\nfi\n",
			[]string{"k:if", `s:"$X"`, "k:then", "s:'a#b'", "c:# done", "k:fi"}},
		{"json", `{"a": [1, -2.5e3, true, null]}`,
			[]string{`s:"a"`, "m:1", "m:-2.5e3", "l:true", "l:null"}},
		{"haskell", "main = print 1", nil},
	}
	tag := regexp.MustCompile(`(?s)<span class="([a-z])">(.*?)</span>`)
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			out := highlightHTML(c.lang, c.text)
			var got []string
			for _, m := range tag.FindAllStringSubmatch(out, -1) {
				got = append(got, m[1]+":"+html.UnescapeString(m[2]))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("spans\n%q\nwant\n%q", got, c.want)
			}
			if back := html.UnescapeString(tag.ReplaceAllString(out, "$2")); back != c.text {
				t.Errorf("the text does not survive:\n%q\nwant\n%q", back, c.text)
			}
		})
	}
}

// FuzzHighlight: whatever the code, the highlighted HTML is the code
// itself, escaped, with only span tags added.
func FuzzHighlight(f *testing.F) {
	for _, s := range []string{"func f() { return \"x\" }", "def f():\n    '''doc", "echo \"unterminated", `{"a": "b\`, "x = '\\\"} <&>"} {
		for _, lang := range []string{"go", "python", "sh", "json"} {
			f.Add(lang, s)
		}
	}
	tag := regexp.MustCompile(`<span class="[a-z]">|</span>`)
	f.Fuzz(func(t *testing.T, lang, text string) {
		out := highlightHTML(lang, text)
		rest := tag.ReplaceAllString(out, "")
		if strings.ContainsAny(rest, "<>") {
			t.Fatalf("unescaped markup in %q", out)
		}
		if html.UnescapeString(rest) != text {
			t.Fatalf("the text does not survive: %q -> %q", text, out)
		}
	})
}
