package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that any input parses without a panic and that every
// range the parser reports lies inside the source, on character boundaries.
// The seed corpus is testdata/*.md plus testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("# Stage: x\n## Inputs\n- Layer 4 (working): a.md#\n## Outputs\n- -> output/\n"))
	f.Add([]byte("## Inputs\n| File |\n|---|\n| `\xff` |\n"))
	f.Add([]byte("## Tools\n" + strings.Repeat("s: a,", 10000) + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c := Parse("/fuzz/CONTEXT.md", src)
		check := func(what string, r Range) {
			if r.Start < 0 || r.End > len(src) || r.Start > r.End {
				t.Fatalf("%s range %+v outside source of %d bytes", what, r, len(src))
			}
			if utf8.Valid(src) {
				if r.Start < len(src) && !utf8.RuneStart(src[r.Start]) {
					t.Fatalf("%s range %+v starts inside a character", what, r)
				}
			}
		}
		check("title", c.TitleRange)
		for _, f := range c.Findings {
			check("finding "+f.Code, f.Range)
		}
		for _, in := range c.Inputs {
			check("input", in.Range)
			check("input path", in.PathRange)
		}
		for _, o := range c.Outputs {
			check("output", o.PathRange)
		}
		for _, s := range c.Sections {
			check("section", s.Range)
		}
		if c.Tools != nil {
			for _, s := range c.Tools.Servers {
				check("server", s.ServerRange)
				for _, tn := range s.Tools {
					check("tool", tn.Range)
				}
			}
		}
		if c.ForEach != nil {
			check("for each", c.ForEach.PathRange)
		}
	})
}
