package testcase

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

const goodCase = "# Case: a one-line idea about Go\n" +
	"\n" +
	"A plain idea should give four to six objectives.\n" +
	"\n" +
	"## Inputs\n" +
	"- `input.md` <- idea.md\n" +
	"- ../02-research/output/notes.md <- \"../shared/notes.md\"\n" +
	"\n" +
	"### ../../_config/audience.md\n" +
	"~~~markdown\n" +
	"# Audience\n" +
	"Go developers.\n" +
	"~~~\n" +
	"\n" +
	"## Expect\n" +
	"- non-empty\n" +
	"- contains \"Go\"\n" +
	"- not-contains `TODO`\n" +
	"- matches `(?m)^1\\. [A-Z]`\n" +
	"- sections 0..2\n" +
	"- max-words 250\n" +
	"- rubric: every objective starts with a verb\n" +
	"- rubric >= 8.5: the scope fits a short course\n" +
	"\n" +
	"### verdict.json\n" +
	"- json-schema schema.json\n"

func parse(t *testing.T, src string) *Case {
	t.Helper()
	return Parse(Ref{Stage: "01-scope", Name: "go-idea", File: "/ws/pipeline/01-scope/tests/go-idea.md", Dir: "/ws/pipeline/01-scope/tests"}, []byte(src))
}

func TestParseGoodCase(t *testing.T) {
	c := parse(t, goodCase)
	if len(c.Findings) != 0 {
		t.Fatalf("findings on a good case: %v", c.Findings)
	}
	if c.ID != "01-scope/go-idea" || c.Title != "a one-line idea about Go" || !strings.HasPrefix(c.Summary, "A plain idea") {
		t.Errorf("id %q title %q summary %q", c.ID, c.Title, c.Summary)
	}
	wantIn := []StandIn{
		{Target: "input.md", From: "idea.md"},
		{Target: "../02-research/output/notes.md", From: "../shared/notes.md"},
		{Target: "../../_config/audience.md", Inline: "# Audience\nGo developers.\n", IsInline: true},
	}
	if len(c.Inputs) != len(wantIn) {
		t.Fatalf("inputs %+v", c.Inputs)
	}
	for i, w := range wantIn {
		g := c.Inputs[i]
		if g.Target != w.Target || g.From != w.From || g.Inline != w.Inline || g.IsInline != w.IsInline {
			t.Errorf("input %d: %+v, want %+v", i, g, w)
		}
	}
	type want struct {
		kind, value, output string
		threshold           float64
		min, max            int
	}
	wantEx := []want{
		{kind: "non-empty"},
		{kind: KindContains, value: "Go"},
		{kind: KindNotContains, value: "TODO"},
		{kind: KindMatches, value: `(?m)^1\. [A-Z]`},
		{kind: KindSections, min: 0, max: 2},
		{kind: "max-words", min: -1, max: 250},
		{kind: KindRubric, value: "every objective starts with a verb", threshold: 7},
		{kind: KindRubric, value: "the scope fits a short course", threshold: 8.5},
		{kind: "json-schema", output: "verdict.json"},
	}
	if len(c.Expect) != len(wantEx) {
		t.Fatalf("expectations %+v", c.Expect)
	}
	for i, w := range wantEx {
		g := c.Expect[i]
		if g.Kind != w.kind || g.Value != w.value || g.Output != w.output || g.Threshold != w.threshold {
			t.Errorf("expectation %d: %+v, want %+v", i, g, w)
		}
		if w.kind == KindSections || w.kind == "max-words" {
			if g.Check == nil || g.Check.Min != w.min || g.Check.Max != w.max {
				t.Errorf("expectation %d bounds: %+v", i, g.Check)
			}
		}
	}
	if c.Hash == "" {
		t.Error("no content hash")
	}
}

// Every range points at the text it stands for.
func TestRangesPointAtTheText(t *testing.T) {
	c := parse(t, goodCase)
	at := func(r document.Range) string { return goodCase[r.Start:r.End] }
	if at(c.TitleRange) != "Case: a one-line idea about Go" {
		t.Errorf("title range %q", at(c.TitleRange))
	}
	for _, in := range c.Inputs {
		if at(in.TargetRange) != in.Target {
			t.Errorf("target range %q for %q", at(in.TargetRange), in.Target)
		}
		if !in.IsInline && at(in.FromRange) != in.From {
			t.Errorf("from range %q for %q", at(in.FromRange), in.From)
		}
	}
	for _, e := range c.Expect {
		if at(e.Range) != e.Text {
			t.Errorf("expectation range %q for %q", at(e.Range), e.Text)
		}
	}
	m := document.NewMapper([]byte(goodCase))
	line, col, err := m.LineCol(c.Inputs[1].FromRange.Start)
	if err != nil || line != 7 || col != 38 {
		t.Errorf("the second stand-in's file is at %d:%d (%v), want 7:38", line, col, err)
	}
}

func TestDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		code      string
		sev       contract.Severity
		line      int
		msg       string
	}{
		{"unknown expectation", "# Case: x\n## Expect\n- contain \"a\"\n", CodeBadExpect, contract.Error, 3, `unknown expectation "contain"`},
		{"bad regex", "# Case: x\n## Expect\n- matches `a(`\n", CodeBadExpect, contract.Error, 3, "not a valid regular expression"},
		{"empty contains", "# Case: x\n## Expect\n- contains \"\"\n", CodeBadExpect, contract.Error, 3, "hold nothing"},
		{"unclosed quote", "# Case: x\n## Expect\n- not-contains \"abc\n", CodeBadExpect, contract.Error, 3, "not a closed"},
		{"rubric over ten", "# Case: x\n## Expect\n- rubric >= 11: clear\n", CodeBadExpect, contract.Error, 3, "from 0 to 10"},
		{"rubric without criterion", "# Case: x\n## Expect\n- rubric >= 6:\n", CodeBadExpect, contract.Error, 3, "names no criterion"},
		{"bad verify check", "# Case: x\n## Expect\n- headings many\n", CodeBadExpect, contract.Error, 3, "headings needs a count"},
		{"bad sections", "# Case: x\n## Expect\n- sections\n", CodeBadExpect, contract.Error, 3, "sections needs a count"},
		{"no arrow", "# Case: x\n## Inputs\n- input.md idea.md\n## Expect\n- non-empty\n", CodeBadInput, contract.Error, 3, "REPLACED <- FILE"},
		{"no source", "# Case: x\n## Inputs\n- input.md <-\n## Expect\n- non-empty\n", CodeBadInput, contract.Error, 3, "after `<-`"},
		{"twice", "# Case: x\n## Inputs\n- input.md <- a.md\n- ./input.md <- b.md\n## Expect\n- non-empty\n", CodeDuplicateInput, contract.Error, 4, "replaced twice"},
		{"heading without block", "# Case: x\n## Inputs\n### input.md\nsome text\n## Expect\n- non-empty\n", CodeBadInput, contract.Error, 3, "needs a fenced block"},
		{"block without heading", "# Case: x\n## Inputs\n```\nhi\n```\n## Expect\n- non-empty\n", CodeBadInput, contract.Error, 4, "no `### FILE` heading"},
		{"no expect", "# Case: x\n## Inputs\n- input.md <- a.md\n", CodeNoExpect, contract.Warning, 1, "no ## Expect"},
		{"empty expect", "# Case: x\n## Expect\n\n## Notes\nhi\n", CodeNoExpect, contract.Warning, 2, "lists nothing"},
		{"unknown section", "# Case: x\n## Setup\nhi\n## Expect\n- non-empty\n", CodeUnknownSection, contract.Info, 2, "kept"},
		{"second expect", "# Case: x\n## Expect\n- non-empty\n## Expect\n- sources\n", CodeDuplicateSect, contract.Error, 4, "second"},
		{"no title", "## Expect\n- non-empty\n", CodeNoTitle, contract.Info, 1, "no title"},
		{"bad verify", "# Case: x\n## Expect\n- verify maybe\n", CodeBadExpect, contract.Error, 3, "`passes` or `fails`"},
		{"verify twice", "# Case: x\n## Expect\n- verify fails\n- verify passes\n", CodeBadExpect, contract.Error, 4, "a second `verify` line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := parse(t, tc.src)
			m := document.NewMapper([]byte(tc.src))
			var got []string
			for _, f := range c.Findings {
				line, _, _ := m.LineCol(f.Range.Start)
				got = append(got, f.Code)
				if f.Code == tc.code {
					if f.Severity != tc.sev || line != tc.line || !strings.Contains(f.Message, tc.msg) {
						t.Errorf("%s at line %d: %q; want %s at line %d saying %q", f.Severity, line, f.Message, tc.sev, tc.line, tc.msg)
					}
					return
				}
			}
			t.Errorf("no %s finding; got %v", tc.code, got)
		})
	}
}

func TestExpectationForms(t *testing.T) {
	for _, tc := range []struct {
		line, kind, value string
	}{
		{`contains Ollama serve`, KindContains, "Ollama serve"},
		{`contains "tab\there"`, KindContains, "tab\there"},
		{"`non-empty`", "non-empty", ""},
		{"run: grep -q x output/a.md", "run", ""},
		{"RUBRIC at least 6: plain words", KindRubric, "plain words"},
		{"code-blocks parse", "code-blocks", ""},
		{"verify fails", KindVerify, "fails"},
		{"verify: passes", KindVerify, "passes"},
	} {
		e, err := ParseExpectation(tc.line)
		if err != nil || e.Kind != tc.kind || e.Value != tc.value {
			t.Errorf("%q: %+v %v", tc.line, e, err)
		}
	}
}
