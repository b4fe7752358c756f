package markdown

import (
	"strings"
	"testing"
)

const sample = `# Stage: 01-scope

One line of summary.

## Inputs
- Layer 4 (working): input.md
- Layer 3 (reference): ../../_config/audience.md
  continued here

## Tools
search-server: search
browser-server: summarize, extract

### Notes under tools
text

## Outputs
| Artifact | Location | Format |
|----------|----------|--------|
| Notes | ` + "`output/notes.md`" + ` | Markdown |

## Script
` + "```sh no-run\necho hi\n```" + `
`

func TestSections(t *testing.T) {
	d := Parse([]byte(sample))
	title, ok := d.Title()
	if !ok || title.Text != "Stage: 01-scope" {
		t.Fatalf("title = %q, %v", title.Text, ok)
	}
	if got := d.Src[title.TextRange.Start:title.TextRange.End]; string(got) != "Stage: 01-scope" {
		t.Errorf("title range covers %q", got)
	}
	secs := d.Sections(2)
	var names []string
	for _, s := range secs {
		names = append(names, s.Heading.Text)
	}
	if strings.Join(names, ",") != "Inputs,Tools,Outputs,Script" {
		t.Fatalf("sections = %v", names)
	}
	in := secs[0]
	if len(in.Blocks) != 1 || in.Blocks[0].Kind != BlockList {
		t.Fatalf("inputs blocks = %+v", in.Blocks)
	}
	items := in.Blocks[0].Lines
	if len(items) != 2 || items[0].Text != "Layer 4 (working): input.md" {
		t.Fatalf("items = %+v", items)
	}
	if items[1].Text != "Layer 3 (reference): ../../_config/audience.md continued here" {
		t.Errorf("joined item = %q", items[1].Text)
	}
	if got := sample[items[0].Range.Start:items[0].Range.End]; got != items[0].Text {
		t.Errorf("item range covers %q", got)
	}
	tools := secs[1]
	if len(tools.Blocks) < 1 || len(tools.Blocks[0].Lines) != 2 {
		t.Fatalf("tools paragraph lines = %+v", tools.Blocks)
	}
	if l := tools.Blocks[0].Lines[1]; sample[l.Range.Start:l.Range.End] != "browser-server: summarize, extract" {
		t.Errorf("second tools line covers %q", sample[l.Range.Start:l.Range.End])
	}
	// The ### sub-heading belongs to the Tools section.
	if !strings.Contains(sample[tools.Range.Start:tools.Range.End], "### Notes under tools") {
		t.Error("sub-heading not inside its section")
	}
	out := secs[2].Blocks[0]
	if out.Kind != BlockTable || len(out.Table.Rows) != 1 {
		t.Fatalf("outputs table = %+v", out)
	}
	c := out.Table.Rows[0][1]
	if c.Text != "`output/notes.md`" || sample[c.Range.Start:c.Range.End] != c.Text {
		t.Errorf("cell = %+v", c)
	}
	code := secs[3].Blocks[0]
	if code.Kind != BlockCode || code.Code.Info != "sh no-run" || code.Code.Text != "echo hi\n" {
		t.Errorf("code = %+v", code.Code)
	}
}

func TestFindHeadingAndItems(t *testing.T) {
	src := "# Outline\n\n## Module 1: Install\n- a\n\n### Detail\nx\n\n## Module 2: Call it\n- b\n\n# Appendix\n"
	d := Parse([]byte(src))
	items := d.Items()
	if len(items) != 2 {
		t.Fatalf("items = %+v", items)
	}
	if items[0].Title != "Module 1: Install" || items[0].Body != "- a\n\n### Detail\nx" {
		t.Errorf("item 0 = %+v", items[0])
	}
	if items[1].Body != "- b" {
		t.Errorf("item 1 body = %q (must stop at the level-1 heading)", items[1].Body)
	}
	for _, q := range []string{"detail", "DETAIL:", "**Detail**", "module-2-call-it"} {
		if _, ok := d.FindHeading(q); !ok {
			t.Errorf("FindHeading(%q) not found", q)
		}
	}
	i, _ := d.FindHeading("Module 1: Install")
	if got := src[d.HeadingSpan(i).Start:d.HeadingSpan(i).End]; !strings.HasSuffix(got, "x\n\n") {
		t.Errorf("span = %q", got)
	}
}

func TestParseNeverPanics(t *testing.T) {
	for _, src := range []string{"", "#", "##", "| a |\n|---|\n", "```", "\xff\xfe## x", strings.Repeat("a", 1<<20)} {
		d := Parse([]byte(src))
		_ = d.Sections(2)
		_ = d.Items()
	}
}

func TestLineSubAcrossContinuation(t *testing.T) {
	src := "- first part\n  second part\n"
	d := Parse([]byte(src))
	l := d.blocks[0].Lines[0]
	i := strings.Index(l.Text, "second")
	r := l.Sub(i, len("second"))
	if got := src[r.Start:r.End]; got != "second" {
		t.Errorf("Sub covers %q, want %q", got, "second")
	}
	r = l.Sub(2, 4)
	if got := src[r.Start:r.End]; got != "rst " && got != "rst" {
		t.Errorf("Sub(2,4) covers %q", got)
	}
}

func TestFence(t *testing.T) {
	if got := Fence("text", "a ``` b"); got != "````text\na ``` b\n````\n" {
		t.Errorf("Fence = %q", got)
	}
	if got := Fence("", "plain"); got != "```\nplain\n```\n" {
		t.Errorf("Fence = %q", got)
	}
}
