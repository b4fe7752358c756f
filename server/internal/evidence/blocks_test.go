package evidence

import (
	"strings"
	"testing"
)

// unitDoc has every kind of block, before and under headings.
const unitDoc = `Intro paragraph before any heading.

# Notes

## Local runtimes

First paragraph
wraps over two lines.

- item one
  continues here
- item two
  - nested item
  - another nested

    a second paragraph of the nested item
- item three

1. numbered
2) other numbered

| Runtime | Memory |
| --- | --- |
| llama.cpp | 4 GB |
|  |  |
| ollama | 5 GB |

> a quoted line
> and its second line

` + "```sh\nmake build\n```" + `

<div>html is skipped</div>

---

### Deeper

Under deeper.

## Back up

Last one.
`

func TestBlocksSplitsUnits(t *testing.T) {
	bs, err := blocks([]byte(unitDoc), false)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind     UnitKind
		text     string
		headings string
	}
	wants := []want{
		{KindParagraph, "Intro paragraph before any heading.", ""},
		{KindParagraph, "First paragraph\nwraps over two lines.", "Notes › Local runtimes"},
		{KindItem, "item one\n  continues here", "Notes › Local runtimes"},
		{KindItem, "item two", "Notes › Local runtimes"},
		{KindItem, "nested item", "Notes › Local runtimes"},
		{KindItem, "another nested", "Notes › Local runtimes"},
		{KindParagraph, "a second paragraph of the nested item", "Notes › Local runtimes"},
		{KindItem, "item three", "Notes › Local runtimes"},
		{KindItem, "numbered", "Notes › Local runtimes"},
		{KindItem, "other numbered", "Notes › Local runtimes"},
		{KindRow, "| llama.cpp | 4 GB |", "Notes › Local runtimes"},
		{KindRow, "| ollama | 5 GB |", "Notes › Local runtimes"},
		{KindQuote, "> a quoted line\n> and its second line", "Notes › Local runtimes"},
		{KindParagraph, "Under deeper.", "Notes › Local runtimes › Deeper"},
		{KindParagraph, "Last one.", "Notes › Back up"},
	}
	var got []string
	for _, b := range bs {
		got = append(got, string(b.kind)+": "+unitDoc[b.start:b.end]+" ["+strings.Join(b.headings, " › ")+"]")
	}
	var exp []string
	for _, w := range wants {
		exp = append(exp, string(w.kind)+": "+w.text+" ["+w.headings+"]")
	}
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("units:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
}

func TestBlocksKeepCodeForSources(t *testing.T) {
	bs, _ := blocks([]byte(unitDoc), true)
	found := false
	for _, b := range bs {
		if b.kind == kindCode {
			found = unitDoc[b.start:b.end] == "make build"
		}
	}
	if !found {
		t.Errorf("a source's code block is a passage: %+v", bs)
	}
}

func TestBlocksOfTooDeepATextSplitAtBlankLines(t *testing.T) {
	deep := strings.Repeat(">", 100) + " deep\n\nnext paragraph\n"
	bs, err := blocks([]byte(deep), false)
	if err == nil {
		t.Fatal("a text nested past the parser's limit gives the parser's error")
	}
	if len(bs) != 2 || deep[bs[1].start:bs[1].end] != "next paragraph" {
		t.Errorf("split at blank lines: %+v", bs)
	}
}
