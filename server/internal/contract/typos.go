package contract

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/suggest"
)

// sectionNames are icm's sections as a heading names them, for "did you
// mean": each with what icm does without it.
var sectionNames = []struct{ name, kind, without string }{
	{"Inputs", KindInputs, "icm loads none of its files"},
	{"Input", KindInputs, "icm loads none of its files"},
	{"Tools", KindTools, "the stage is offered no tool from it"},
	{"For each", KindForEach, "the stage runs once, not once per item"},
	{"Process", KindProcess, "the model gets it as written, not as the stage's Process"},
	{"Outputs", KindOutputs, "icm takes no file from it to write the stage's answer to"},
	{"Output", KindOutputs, "icm takes no file from it to write the stage's answer to"},
	{"Model", KindModel, "none of its settings is applied"},
	{"Verify", KindVerify, "icm runs no check from it"},
	{"Script", KindScript, "icm runs no command from it"},
	{"Gate", KindGate, "the gate is the default, a person approves"},
	{"Thresholds", KindThresholds, "icm reads no threshold from it"},
	{"Review Gate", "", "it is not shown as the checklist at the review gate"},
}

// misspelt notes a heading that is a slip away from one of icm's
// sections ("Outptus"): one warning, with the section meant as its fix
// (Data "suggest", on the heading's text), saying what icm does with it
// meanwhile. It reports whether the heading was one.
func (p *parser) misspelt(s markdown.Section) bool {
	names := make([]string, len(sectionNames))
	for i, n := range sectionNames {
		names[i] = n.name
	}
	near := suggest.Slip(s.Heading.Text, names)
	if near == "" || IsReviewHeading(s.Heading.Text) {
		return false
	}
	for _, n := range sectionNames {
		if n.name != near {
			continue
		}
		if p.typos == nil {
			p.typos = map[string]bool{}
		}
		if n.kind != "" {
			p.typos[n.kind] = true
		}
		p.c.Findings = append(p.c.Findings, Finding{File: p.c.File, Range: s.Heading.TextRange, Severity: Warning, Code: CodeUnknownSection,
			Basis: BasisReading, Data: map[string]string{"suggest": near},
			Message: fmt.Sprintf("section %q is no section of icm's, so %s: did you mean %q?", s.Heading.Text, n.without, near)})
	}
	return true
}
