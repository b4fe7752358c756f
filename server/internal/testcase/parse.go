package testcase

import (
	"fmt"
	"path"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/state"
)

// Section kinds of a case.
const (
	SectionInputs = "inputs"
	SectionExpect = "expect"
)

var sectionNames = map[string]string{
	"inputs": SectionInputs, "input": SectionInputs, "stand-ins": SectionInputs, "given": SectionInputs,
	"expect": SectionExpect, "expects": SectionExpect, "expectations": SectionExpect, "expected": SectionExpect,
}

// SectionKind says which case section a `##` heading opens ("" when the
// case grammar does not use it).
func SectionKind(heading string) string {
	n := strings.ToLower(strings.Join(strings.Fields(strings.Trim(heading, " :#*")), " "))
	return sectionNames[n]
}

// Ref places a case file: what Parse needs besides its text.
type Ref struct {
	Stage string
	// Name is the file name without .md, or the folder name.
	Name string
	File string
	// Dir is the folder the case's relative paths start from.
	Dir    string
	Folder bool
}

// ID is "STAGE/NAME".
func (r Ref) ID() string { return r.Stage + "/" + r.Name }

type parser struct {
	src []byte
	c   *Case
}

// Parse reads a case. It never fails: problems become findings.
func Parse(ref Ref, src []byte) *Case {
	c := &Case{ID: ref.ID(), Stage: ref.Stage, Name: ref.Name, File: ref.File, Dir: ref.Dir, Folder: ref.Folder,
		Hash: state.Hash(src), Inputs: []StandIn{}, Expect: []Expectation{}, Findings: []contract.Finding{}}
	p := &parser{src: src, c: c}
	p.parse()
	return c
}

func (p *parser) parse() {
	doc := markdown.Parse(p.src)
	c := p.c
	if t, ok := doc.Title(); ok {
		c.Title = strings.TrimSpace(trimPrefixFold(t.Text, "case:"))
		c.TitleRange = t.TextRange
	} else {
		c.Title = c.Name
		p.add(document.Range{}, contract.Info, CodeNoTitle, "the case has no title; start it with `# Case: WHAT IT CHECKS`")
	}
	var summary []string
	for _, b := range doc.BlocksBefore(2) {
		if b.Kind == markdown.BlockParagraph {
			summary = append(summary, string(p.src[b.Range.Start:b.Range.End]))
		}
	}
	c.Summary = strings.TrimSpace(strings.Join(summary, "\n\n"))
	seen := map[string]bool{}
	for _, s := range doc.Sections(2) {
		kind := SectionKind(s.Heading.Text)
		switch {
		case kind == "":
			p.add(s.Heading.TextRange, contract.Info, CodeUnknownSection,
				fmt.Sprintf("section %q is kept but a case uses only ## Inputs and ## Expect", s.Heading.Text))
			continue
		case seen[kind]:
			p.add(s.Heading.TextRange, contract.Error, CodeDuplicateSect,
				fmt.Sprintf("a second %q section; merge it into the first", s.Heading.Text))
			continue
		}
		seen[kind] = true
		if kind == SectionInputs {
			p.inputs(s)
		} else {
			p.expect(s)
		}
	}
	if len(c.Expect) == 0 && !seen[SectionExpect] {
		p.add(c.TitleRange, contract.Warning, CodeNoExpect,
			"the case has no ## Expect section: it checks only the stage's own Verify checks; add lines such as `- contains \"Ollama\"`")
	}
}

func (p *parser) add(r document.Range, sev contract.Severity, code, msg string) {
	p.c.Findings = append(p.c.Findings, contract.Finding{File: p.c.File, Range: r, Severity: sev, Code: code, Message: msg})
}

// inputs reads `- TARGET <- FILE` lines and `### TARGET` headings each
// followed by a fenced block with the content.
func (p *parser) inputs(s markdown.Section) {
	var pending *StandIn
	flush := func() {
		if pending != nil {
			p.add(pending.TargetRange, contract.Error, CodeBadInput,
				fmt.Sprintf("`### %s` needs a fenced block with the stand-in's content right below it", pending.Target))
			pending = nil
		}
	}
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockHeading:
			flush()
			h := b.Heading
			target, at := unquote(h.Text)
			pending = &StandIn{Target: target, TargetRange: sub(h.TextRange, at, len(target)), IsInline: true, Range: h.Line}
			if target == "" {
				p.add(h.TextRange, contract.Error, CodeBadInput, "an empty heading: name the replaced file, e.g. `### input.md`")
				pending = nil
			}
		case markdown.BlockCode:
			if pending == nil {
				p.add(b.Range, contract.Error, CodeBadInput, "a code block with no `### FILE` heading above it: say which input it replaces")
				continue
			}
			pending.Inline = b.Code.Text
			pending.Range.End = b.Range.End
			p.addInput(*pending)
			pending = nil
		case markdown.BlockList:
			flush()
			for _, l := range b.Lines {
				p.inputLine(l)
			}
		case markdown.BlockParagraph:
			flush()
			for _, l := range b.Lines {
				if strings.Contains(l.Text, "<-") {
					p.inputLine(l)
				}
			}
		}
	}
	flush()
}

func (p *parser) inputLine(l markdown.Line) {
	i := strings.Index(l.Text, "<-")
	if i < 0 {
		p.add(l.Range, contract.Error, CodeBadInput,
			"a stand-in line is `- REPLACED <- FILE` (e.g. `- input.md <- idea.md`), or a `### REPLACED` heading over a fenced block")
		return
	}
	left, right := l.Text[:i], l.Text[i+2:]
	target, tat := unquote(left)
	from, fat := unquote(right)
	in := StandIn{Target: target, TargetRange: l.Sub(tat, len(target)), From: from, FromRange: l.Sub(i+2+fat, len(from)), Range: l.Range}
	switch {
	case target == "":
		p.add(l.Range, contract.Error, CodeBadInput, "name the replaced file before `<-`, as the contract writes it (e.g. `input.md`)")
	case from == "":
		p.add(l.Range, contract.Error, CodeBadInput, "name the file with the stand-in's content after `<-` (relative to the case)")
	default:
		p.addInput(in)
	}
}

func (p *parser) addInput(in StandIn) {
	for _, prev := range p.c.Inputs {
		if path.Clean(prev.Target) == path.Clean(in.Target) {
			p.add(in.TargetRange, contract.Error, CodeDuplicateInput, fmt.Sprintf("%s is replaced twice; keep one stand-in", in.Target))
			return
		}
	}
	p.c.Inputs = append(p.c.Inputs, in)
}

// expect reads one expectation per list line; a `### FILE` heading makes
// the lines after it read that output.
func (p *parser) expect(s markdown.Section) {
	output := ""
	for _, b := range s.Blocks {
		switch b.Kind {
		case markdown.BlockHeading:
			output, _ = unquote(b.Heading.Text)
		case markdown.BlockList, markdown.BlockParagraph:
			for _, l := range b.Lines {
				e, err := ParseExpectation(l.Text)
				if err != nil {
					p.add(l.Range, contract.Error, CodeBadExpect, err.Error())
					continue
				}
				if e.Kind == KindVerify && p.hasVerify() {
					p.add(l.Range, contract.Error, CodeBadExpect, "a second `verify` line; a case states the outcome of the stage's Verify checks once")
					continue
				}
				e.Output, e.Range = output, l.Range
				if e.Kind == KindVerify {
					e.Output = "" // it is about the stage, not one output
				}
				if e.Check != nil {
					e.Check.Range = l.Range
				}
				p.c.Expect = append(p.c.Expect, e)
			}
		}
	}
	if len(p.c.Expect) == 0 {
		p.add(s.Heading.TextRange, contract.Warning, CodeNoExpect, "the Expect section lists nothing; add lines such as `- contains \"Ollama\"` or `- rubric >= 7: ...`")
	}
}

func (p *parser) hasVerify() bool {
	for _, e := range p.c.Expect {
		if e.Kind == KindVerify {
			return true
		}
	}
	return false
}

// unquote trims spaces and one pair of backticks or quotes, returning the
// offset of the result in s.
func unquote(s string) (string, int) {
	t := strings.TrimSpace(s)
	at := strings.Index(s, t)
	if len(t) >= 2 && (t[0] == '`' && t[len(t)-1] == '`' || t[0] == '"' && t[len(t)-1] == '"') {
		return t[1 : len(t)-1], at + 1
	}
	return t, at
}

func sub(r document.Range, at, n int) document.Range {
	if at < 0 {
		return r
	}
	return document.Range{Start: r.Start + at, End: r.Start + at + n}
}

func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}
