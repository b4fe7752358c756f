package evidence

import (
	"context"
	"strings"
	"testing"
)

// markSources are the sources of the marks tests: an input and a fetched
// page whose call named another URL in its arguments.
var markSources = []Source{
	{Kind: SourceInput, Name: "notes.md", Text: []byte("# Notes\n\nSales were 1,850 litres in 2023. It takes five hours. Posted 14 November 2023. Installed in March 2024, checked 2024-05-06.\n\nThe rule the group follows is to remove no more than a quarter. See https://read.example/page for more.\n")},
	{Kind: SourceTool, Name: "https://fetched.example/a", URL: "https://fetched.example/a", Tool: "fetch", CallID: "c1", Args: `{"url":"https://args.example/b"}`, Text: []byte("A page of 3.50 pounds.")},
}

// marksOf computes evidence for one paragraph and returns its marks as
// "kind:text".
func marksOf(t *testing.T, paragraph string) []string {
	t.Helper()
	res := Compute(context.Background(), Input{Text: []byte(paragraph + "\n"), Sources: markSources, ReadURLs: []string{"https://record.example/c/"}}, Options{})
	if len(res.Units) != 1 {
		t.Fatalf("%q: %d units", paragraph, len(res.Units))
	}
	var out []string
	for _, m := range res.Units[0].Marks {
		out = append(out, string(m.Kind)+":"+m.Text)
		if m.Message == "" || !strings.Contains(m.Message, m.Text) {
			t.Errorf("mark %+v: its message must name what it found", m)
		}
	}
	return out
}

func TestMarks(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"They made 1850 litres, then 1,850 more, at 3.5 pounds.", ""},
		{"It takes 5 hours.", ""},
		{"It sold 9,100 bottles in 2023.", "number:9,100"},
		{"Posted on November 14, 2023, or 2023-11-14, or 14/11/2023, or 14 November.", ""},
		{"Posted 15 November 2023.", "date:15 November 2023"},
		{"Installed in March 2024.", ""},
		{"Installed in April 2024.", "date:April 2024"},
		{`The notes say "the rule the group follows" and “remove no more than a quarter”.`, ""},
		{`The notes say “remove no more than half” of the "group".`, "quote:“remove no more than half”"},
		{"Read https://read.example/page/ and https://fetched.example/a#top and https://args.example/b and https://record.example/c.", ""},
		{"Read https://never.example/2025 and [this](https://never.example/other).", "url_never_read:https://never.example/2025 url_never_read:https://never.example/other"},
	} {
		if got := strings.Join(marksOf(t, c.text), " "); got != c.want {
			t.Errorf("%s\n  marks %q, want %q", c.text, got, c.want)
		}
	}
}

func TestFindDates(t *testing.T) {
	text := "On 3 March 2024, March 3rd, 2024, 2024-03-03, 03/04/2024, May 2019, Sept 2020, 5 May and June 7. Not: it may 4, 13/13/2024, 2024-13."
	var got []string
	for _, d := range findDates(text) {
		got = append(got, text[d.start:d.end]+"="+strings.Join(d.keys, ","))
	}
	want := []string{
		"3 March 2024=2024-03-03", "March 3rd, 2024=2024-03-03", "2024-03-03=2024-03-03",
		"03/04/2024=2024-04-03,2024-03-04", "May 2019=2019-05", "Sept 2020=2020-09", "5 May=--05-05", "June 7=--06-07",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("dates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Only windows around dates' words are searched, with the same result.
	ws := collect(text)
	if a, b := len(findDatesIn(text, ws)), len(findDates(text)); a != b {
		t.Errorf("findDatesIn found %d dates, findDates %d", a, b)
	}
}
