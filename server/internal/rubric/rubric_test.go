package rubric

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
)

// check runs a rubric on one output and returns the checks (notes too).
func check(t *testing.T, rubric, output string) []state.RubricCheck {
	t.Helper()
	r, problems := Parse([]byte(rubric))
	if len(problems) > 0 {
		t.Fatalf("rubric problems: %v", problems)
	}
	return Check(r, "s/references/review-rubric.md", "s/output/plan.md", []byte(output))
}

// failures returns the messages of the failing checks.
func failures(cs []state.RubricCheck) []string {
	var out []string
	for _, c := range cs {
		if !c.OK && !c.Note {
			out = append(out, c.Message)
		}
	}
	return out
}

// kindCase is one rubric section kind with an output that meets it and
// one that does not.
type kindCase struct {
	name, rubric, pass, fail, want string
}

var kindCases = []kindCase{
	{
		name:   "required sections",
		rubric: "# Review rubric\n\n## Required Sections\n- Goals\n- Risks\n",
		pass:   "# Garden plan\n\n## Goals\nGrow beans.\n\n## 2. Risks\nSlugs.\n",
		fail:   "# Garden plan\n\n## Goals\nGrow beans.\n\n## Budget\nTen coins.\n",
		want:   `missing section "Risks"`,
	},
	{
		name:   "required terms",
		rubric: "## required terms\n- watering schedule\n",
		pass:   "Keep a Watering Schedule on the shed door.\n",
		fail:   "Water when the soil looks dry.\n",
		want:   `missing term "watering schedule"`,
	},
	{
		name:   "forbidden terms",
		rubric: "## Forbidden Terms\n- `lorem ipsum`\n",
		pass:   "Beans climb the fence by June.\n",
		fail:   "Beans climb.\nLorem Ipsum dolor.\n",
		want:   `forbidden term "lorem ipsum" used`,
	},
	{
		name:   "required sources",
		rubric: "## Required Sources\n- ./notes/soil-test.md\n",
		pass:   "As the soil test says (notes/soil-test.md), the pH is 6.5.\n",
		fail:   "The pH is 6.5, as everyone knows.\n",
		want:   "does not cite ./notes/soil-test.md",
	},
	{
		name:   "required table columns",
		rubric: "## Required Table Columns\n- Crop\n- Sow by\n- Harvest\n",
		pass:   "| crop | **Sow by** | Harvest | Notes |\n|---|---|---|---|\n| beans | May | August | climbs |\n",
		fail:   "| Crop | Sow by |\n|---|---|\n| beans | May |\n\n| Harvest |\n|---|\n| August |\n",
		want:   `no table has all the columns "Crop", "Sow by", "Harvest": the closest lacks "Harvest"`,
	},
	{
		name:   "required link or path count",
		rubric: "## Required Link Or Path Count\n- 3\n",
		pass:   "See [the almanac](https://almanac.test/beans), `beds/north.md` and plots/south.md.\n",
		fail:   "See [the almanac](https://almanac.test/beans) and https://almanac.test/beans.\n",
		want:   "1 link or path; at least 3 expected",
	},
}

// Each kind fails on the output that misses it and passes on the one that
// meets it: the same rubric, two outputs.
func TestEachKindFailsAndPasses(t *testing.T) {
	for _, tc := range kindCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := failures(check(t, tc.rubric, tc.fail)); len(got) != 1 || got[0] != tc.want {
				t.Errorf("failing output: got %q, want [%q]", got, tc.want)
			}
			cs := check(t, tc.rubric, tc.pass)
			if got := failures(cs); len(got) != 0 {
				t.Errorf("passing output: got failures %q", got)
			}
			if len(cs) == 0 {
				t.Error("passing output: no check ran")
			}
		})
	}
}

// Required Artifact Shapes and a heading icm does not know are notes: they
// are reported and never fail, whatever the output holds.
func TestNotesNeverFail(t *testing.T) {
	rubric := "## Required Artifact Shapes\n- one plan per bed\n\n## Tone\n- friendly\n\n## Required Sections\n- Goals\n"
	cs := check(t, rubric, "## Goals\nGrow beans.\n")
	notes := 0
	for _, c := range cs {
		if c.Note {
			notes++
			if !c.OK || !strings.Contains(c.Message, "note") {
				t.Errorf("note %+v: want OK and a message saying it is a note", c)
			}
		}
	}
	if notes != 2 {
		t.Errorf("got %d notes, want 2 (Required Artifact Shapes and Tone): %+v", notes, cs)
	}
	if pass, of, _ := state.RubricCount(cs); pass != 1 || of != 1 {
		t.Errorf("count = %d of %d, want 1 of 1 (notes are not checks)", pass, of)
	}
}

// The line of a failing rubric is the one the editor and icm status show.
func TestRubricLine(t *testing.T) {
	rubric := "## Required Sections\n- Goals\n- Risks\n- Budget\n\n## Required Terms\n- beans\n"
	got := state.RubricLine(check(t, rubric, "## Goals\nbeans\n## Budget\nten\n"))
	if want := `3 of 4 rubric checks pass: missing section "Risks"`; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}

// A forbidden term names the output's line where it stands.
func TestForbiddenTermLine(t *testing.T) {
	cs := check(t, "## Forbidden Terms\n- TBD\n", "one\ntwo\nthree tbd\n")
	if len(cs) != 1 || cs[0].Line != 3 {
		t.Errorf("got %+v, want one failure at line 3", cs)
	}
}

// What a rubric gets wrong is a problem named by line, never a check
// that passes for nothing.
func TestParseProblems(t *testing.T) {
	_, problems := Parse([]byte("# R\n\n## Required Terms\nprose only\n\n## Required Link Or Path Count\n- many\n"))
	if len(problems) != 2 || problems[0].Line != 3 || problems[1].Line != 6 {
		t.Errorf("problems = %+v, want two (lines 3 and 6)", problems)
	}
	r, _ := Parse([]byte("## Required Link Or Path Count\nAt least 2 links.\n```\n## Required Terms\n- inside a fence\n```\n"))
	if len(r.Sections) != 1 || r.Sections[0].Count != 2 {
		t.Errorf("sections = %+v, want the count section alone with 2 (a fence holds no heading)", r.Sections)
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range kindCases {
		f.Add(tc.rubric, tc.fail)
	}
	f.Fuzz(func(t *testing.T, rubric, output string) {
		r, _ := Parse([]byte(rubric))
		for _, c := range Check(r, "r", "o", []byte(output)) {
			if !c.OK && c.Message == "" {
				t.Fatalf("a failing check without a message: %+v", c)
			}
		}
	})
}
