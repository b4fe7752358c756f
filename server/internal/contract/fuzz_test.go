package contract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/document"
)

// FuzzParse checks that any input parses without a panic and that every
// range the parser reports lies inside the source, on character boundaries;
// and that the same contract saved with a byte order mark and CRLF line
// endings reads the same, with every range pointing at the same text. The
// seed corpus is testdata/*.md, testdata/fuzz/FuzzParse, and contracts
// nested deep or grown large (nesting and size are what made the Markdown
// parser slow: they must end in a finding, at once).
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
	for _, depth := range []int{8, 63, 65, 200} {
		f.Add([]byte("# Stage: deep\n\n## Process\n" + nested("- ", "  ", depth) + "\n## Outputs\n- a.md -> output/\n"))
		f.Add([]byte("# Stage: quotes\n\n## Process\n" + nested("> ", "", depth) + "\n## Outputs\n- a.md -> output/\n"))
		f.Add([]byte("# Stage: ordered\n\n## Process\n" + nested("1. ", "   ", depth) + "\n## Outputs\n- a.md -> output/\n"))
	}
	f.Add([]byte("# Stage: big\n\n## Process\n" + strings.Repeat("word ", MaxContractBytes/5+1) + "\n"))
	f.Add([]byte("\ufeff# Stage: bom\r\n\r\n## Process\r\nGo.\r\n\r\n## Outputs\r\n- a.md -> output/\r\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c := Parse("/fuzz/CONTEXT.md", src)
		sameAsSavedWithCRLF(t, src, c)
		check := func(what string, r document.Range) {
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

// nested writes depth lines, each one level deeper than the last: marker
// after indent repeated (lists) or the marker repeated (quotes).
func nested(marker, indent string, depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		if indent == "" {
			b.WriteString(strings.Repeat(marker, i+1) + "x\n")
		} else {
			b.WriteString(strings.Repeat(indent, i) + marker + "x\n")
		}
	}
	return b.String()
}

// sameAsSavedWithCRLF parses src saved as some editors save (a byte order
// mark, CRLF line endings) and checks it reads as c did: the same title,
// process and findings, each finding's range over the same text once the
// carriage returns are left out.
func sameAsSavedWithCRLF(t *testing.T, src []byte, c *Contract) {
	if bytes.ContainsRune(src, '\r') || bytes.HasPrefix(src, []byte("\ufeff")) {
		return
	}
	crlf := append([]byte("\ufeff"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...)
	d := Parse("/fuzz/CONTEXT.md", crlf)
	if d.Title != c.Title || d.Process != c.Process || d.Lines != c.Lines || len(d.Findings) != len(c.Findings) {
		t.Fatalf("saved with CRLF: title %q process %q lines %d findings %d; with LF: %q %q %d %d",
			d.Title, d.Process, d.Lines, len(d.Findings), c.Title, c.Process, c.Lines, len(c.Findings))
	}
	text := func(b []byte, r document.Range) string {
		if r.Start < 0 || r.End > len(b) || r.Start > r.End {
			return fmt.Sprintf("(range %+v outside %d bytes)", r, len(b))
		}
		return strings.ReplaceAll(strings.TrimPrefix(string(b[r.Start:r.End]), "\ufeff"), "\r", "")
	}
	for i, f := range c.Findings {
		g := d.Findings[i]
		if g.Code != f.Code || text(crlf, g.Range) != text(src, f.Range) {
			t.Fatalf("finding %d: %s over %q with CRLF, %s over %q with LF", i, g.Code, text(crlf, g.Range), f.Code, text(src, f.Range))
		}
	}
}
