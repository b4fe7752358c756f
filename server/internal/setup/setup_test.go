package setup

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const structured = `# Getting started

<!-- Note for an agent: ask everything at once. -->

### Q1: Which lake do you watch?
- Placeholder: ` + "`{{LAKE_NAME}}`" + `
- Files: ` + "`stages/01-plan/CONTEXT.md`" + `
- Type: free text
- Default: (no default, required)

### Q2: How early do you start?
- Placeholder: ` + "`{{START_TIME}}`" + `
- Type: selection
- Options: Dawn, Mid-morning, Noon
- Default: Dawn (the birds are out)

### Q3: Anything else?
- Type: free text
`

const listed = `# Setup

1. What is the club called? (e.g. Heron Club)
2. What is its short name? Lowercase. (default: herons)
3. Where do you meet? ` + "`{{MEETING_PLACE}}`" + `
   Give the town too.

Derived automatically:
- ` + "`{{CLUB_SLUG}}`" + ` from Q2
`

func TestParseStructured(t *testing.T) {
	q := Parse(structured)
	if len(q.Questions) != 3 {
		t.Fatalf("questions = %+v", q.Questions)
	}
	a, b, c := q.Questions[0], q.Questions[1], q.Questions[2]
	if a.ID != "Q1" || a.Text != "Which lake do you watch?" || strings.Join(a.Vars, ",") != "LAKE_NAME" || a.Default != "" {
		t.Errorf("Q1 = %+v", a)
	}
	if strings.Join(b.Options, "|") != "Dawn|Mid-morning|Noon" || b.Default != "Dawn" {
		t.Errorf("Q2 = %+v", b)
	}
	if len(c.Vars) != 0 {
		t.Errorf("Q3 = %+v", c)
	}
}

func TestParseNumberedWithDerived(t *testing.T) {
	q := Parse(listed)
	if len(q.Questions) != 3 || q.Questions[1].Default != "herons" || strings.Join(q.Questions[2].Vars, ",") != "MEETING_PLACE" {
		t.Fatalf("questions = %+v", q.Questions)
	}
	if q.Questions[2].Text != "Where do you meet?" {
		t.Errorf("Q3 text = %q", q.Questions[2].Text)
	}
	if q.Derived["CLUB_SLUG"] != "Q2" {
		t.Errorf("derived = %v", q.Derived)
	}
}

// The plan asks the questionnaire's questions that fill a variable (a
// derived one through its question), then each unset variable no
// question fills; what [vars] sets already is left out unless all.
func TestPlan(t *testing.T) {
	q := Parse(listed)
	p := NewPlan(q, "setup/questionnaire.md", []string{"MEETING_PLACE", "GUIDE_NAME"}, map[string]string{"MEETING_PLACE": "Lakeside"}, false)
	var got []string
	for _, a := range p.Asks {
		got = append(got, strings.Join(a.Vars, "+")+" <- "+a.Question)
	}
	want := "CLUB_SLUG <- What is its short name? Lowercase. (default: herons) | GUIDE_NAME <- Value of {{GUIDE_NAME}}"
	if strings.Join(got, " | ") != want {
		t.Errorf("asks = %q\nwant %q", strings.Join(got, " | "), want)
	}
	if p.Unmapped != 1 {
		t.Errorf("unmapped = %d, want 1 (the club's name fills no variable)", p.Unmapped)
	}
	all := NewPlan(q, "setup/questionnaire.md", nil, map[string]string{"MEETING_PLACE": "Lakeside"}, true)
	if len(all.Asks) != 2 || all.Asks[1].Current != "Lakeside" {
		t.Errorf("with all: %+v", all.Asks)
	}
}

func TestAnswer(t *testing.T) {
	a := Ask{Options: []string{"Dawn", "Noon"}, Default: "Dawn"}
	for given, want := range map[string]string{"": "Dawn", "2": "Noon", " Evening ": "Evening"} {
		if got, ok := a.Answer(given); !ok || got != want {
			t.Errorf("Answer(%q) = %q, %v; want %q", given, got, ok, want)
		}
	}
	if _, ok := (Ask{}).Answer(""); ok {
		t.Error("an empty answer with no default set a value")
	}
}

// SetVars keeps the rest of the file, replaces a key in place, adds the
// new ones to the table, and writes a table when there is none; the
// result is TOML that reads back the values, quotes and all.
func TestSetVars(t *testing.T) {
	src := "# mine\n[model]\nname = \"m\" # keep\n\n[vars]\nLAKE = \"old\" # the lake\n\n[workflow]\ngate = \"explicit\"\n"
	out, err := SetVars(src, map[string]string{"LAKE": "Heron \"Lake\"", "START": "C:\\dawn\nearly"})
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"# mine\n", "name = \"m\" # keep\n", "[workflow]\ngate = \"explicit\"\n", "LAKE = \"Heron \\\"Lake\\\"\" # the lake\n"} {
		if !strings.Contains(out, keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
	var v struct{ Vars map[string]string }
	if _, err := toml.Decode(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Vars["LAKE"] != "Heron \"Lake\"" || v.Vars["START"] != "C:\\dawn\nearly" {
		t.Errorf("vars = %q", v.Vars)
	}
	if strings.Index(out, "START") > strings.Index(out, "[workflow]") {
		t.Errorf("the new key is not in [vars]:\n%s", out)
	}
	fresh, err := SetVars("[model]\nname = \"m\"\n", map[string]string{"A": "1"})
	if _, derr := toml.Decode(fresh, &v); err != nil || derr != nil || v.Vars["A"] != "1" {
		t.Errorf("no table before: %v %v\n%s", err, v.Vars, fresh)
	}
	// An inline [vars] is not rewritten line by line: refused, and why.
	if _, err := SetVars("vars = { A = \"1\" }\n", map[string]string{"B": "2"}); err == nil || !strings.Contains(err.Error(), "[vars] B") {
		t.Errorf("an inline [vars]: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(structured)
	f.Add(listed)
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		for _, qq := range q.Questions {
			if qq.ID == "" {
				t.Fatal("a question without an id")
			}
		}
	})
}

func FuzzSetVars(f *testing.F) {
	f.Add("[vars]\nA = \"b\"\n", "A", "x\"y")
	f.Fuzz(func(t *testing.T, src, key, val string) {
		if !validName(key) {
			return
		}
		var before map[string]any
		if _, err := toml.Decode(src, &before); err != nil {
			return
		}
		out, err := SetVars(src, map[string]string{key: val})
		if err != nil {
			return // refused with a reason: nothing written
		}
		var v struct{ Vars map[string]any }
		if _, err := toml.Decode(out, &v); err != nil {
			t.Fatalf("the edited file does not read: %v\n%s", err, out)
		}
		if s, ok := v.Vars[key].(string); !ok || s != val && !strings.ContainsRune(val, 0xFFFD) {
			t.Fatalf("%q = %q, want %q\n%s", key, s, val, out)
		}
	})
}

func validName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
