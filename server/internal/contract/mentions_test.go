package contract

import (
	"reflect"
	"testing"
)

// Paths are found wherever the author wrote them, cleaned of what
// surrounds them; a bare name after a path is looked for beside it.
func TestMentionsIn(t *testing.T) {
	text := "Read `shared/schema.md#Fields` first, then [the guide](docs/guide.md).\n" +
		"| Notes | ../01-a/output/findings.md and sources.md | why |\n" +
		"See the files in `references/`, **_config/voice.md**, and main.go:12.\n" +
		"<!-- old: drafts/old.md -->\n" +
		"Not paths: https://example.com/a.md, output/[slug].md, *.md, --flag, .env, e.g. v1.2, and/or.\n"
	got := MentionsIn(text)
	want := []Mention{
		{Path: "shared/schema.md"},
		{Path: "docs/guide.md"},
		{Path: "../01-a/output/findings.md"},
		{Path: "sources.md", Beside: "../01-a/output"},
		{Path: "references/"},
		{Path: "_config/voice.md"},
		{Path: "main.go", Beside: "_config"},
		{Path: "and/or"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MentionsIn =\n%+v\nwant\n%+v", got, want)
	}
}
