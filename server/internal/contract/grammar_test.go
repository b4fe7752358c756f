package contract

import (
	"regexp"
	"strings"
	"testing"

	contractsschema "github.com/icm-tool/icm/contracts-schema"
)

// The examples in grammar.md's section on ICM-template contracts parse as
// the page says they do.
func TestGrammarTemplateExamples(t *testing.T) {
	doc := contractsschema.Grammar
	start := strings.Index(doc, "## Contracts written for the ICM template")
	end := strings.Index(doc[start:], "\n## Budgets")
	if start < 0 || end < 0 {
		t.Fatal("grammar.md has no section on ICM-template contracts")
	}
	blocks := regexp.MustCompile("(?s)```markdown\n(.*?)```").FindAllStringSubmatch(doc[start:start+end], -1)
	if len(blocks) != 3 {
		t.Fatalf("found %d examples, want 3 (inputs, Portuguese tables, outputs)", len(blocks))
	}
	src := "# Stage 01: Brief\n\n" + blocks[0][1] + "\n" + blocks[2][1] + "\n## Process\n\nGo.\n"
	c := Parse("/ws/stages/01-brief/CONTEXT.md", []byte(src))
	for _, f := range c.Findings {
		if f.Severity <= Warning {
			t.Errorf("inputs and outputs example: %s", f)
		}
	}
	var got []string
	for _, in := range c.Inputs {
		switch {
		case in.NonFile:
			got = append(got, "non-file "+in.What)
		case in.Templated:
			got = append(got, "placeholder "+in.Path)
		case in.Glob:
			got = append(got, "glob "+in.Path)
		case in.Optional:
			got = append(got, "optional "+in.Path)
		case in.Scope != nil && in.Scope.PathOnly:
			got = append(got, "path only "+in.Path)
		case in.Scope != nil && in.Scope.FreeText:
			got = append(got, "names "+strings.Join(in.Scope.Names, "|"))
		default:
			got = append(got, "file "+in.Path)
		}
	}
	want := []string{
		"non-file (conversation)", "non-file Conversation", "non-file git log", "non-file https://example.com/page",
		"placeholder ../01-research/output/[topic-slug]-notes.md", "glob ../../_config/*.md",
		"names Tone|Rhythm", "names Mission|Values",
		"optional output/brief.md", "optional references/extra.md", "path only assets/intro.mp3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("inputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var outs []string
	for _, o := range c.Outputs {
		outs = append(outs, o.Path)
	}
	for _, o := range c.OtherOutputs {
		outs = append(outs, "other "+o.What)
	}
	if w := "output/brief.md output/report.md other Production URL other The target repo (commits or staged diff)"; strings.Join(outs, " ") != w {
		t.Errorf("outputs = %q, want %q", strings.Join(outs, " "), w)
	}

	pt := Parse("/ws/stages/02-roteiro/CONTEXT.md", []byte("# Etapa 02\n\n"+blocks[1][1]+"\n## Processo\n\nEscreva.\n"))
	if len(pt.Inputs) != 2 || pt.Inputs[0].Path != "../01-pesquisa/output/pesquisa.md" || pt.Inputs[1].Scope == nil ||
		pt.Inputs[1].Scope.Headings[0] != "Tom" || len(pt.Outputs) != 1 || pt.Outputs[0].Path != "output/roteiro.md" {
		t.Errorf("Portuguese example: inputs %+v outputs %+v", pt.Inputs, pt.Outputs)
	}
	for _, f := range pt.Findings {
		if f.Severity <= Warning {
			t.Errorf("Portuguese example: %s", f)
		}
	}
}
