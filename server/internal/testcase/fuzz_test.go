package testcase

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/document"
)

// FuzzParse: any bytes parse without a panic, and every range lies inside
// the source.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodCase))
	f.Add([]byte("# Case: x\n## Inputs\n### a.md\n```\nx\n```\n- b <- c\n## Expect\n- rubric >= 3: y\n### out.md\n- contains `z`\n"))
	f.Add([]byte("## Expect\n- matches \"\\\\d+\"\n- contains \"\xff\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c := Parse(Ref{Stage: "s", Name: "n", File: "/f"}, src)
		in := func(r document.Range) {
			if r.Start < 0 || r.End > len(src) || r.Start > r.End {
				t.Fatalf("range %v outside %d bytes", r, len(src))
			}
		}
		in(c.TitleRange)
		for _, s := range c.Inputs {
			in(s.TargetRange)
			in(s.FromRange)
			in(s.Range)
		}
		for _, e := range c.Expect {
			in(e.Range)
		}
		for _, f := range c.Findings {
			in(f.Range)
		}
	})
}
