package contract

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/suggest"
)

// checkKinds are the Verify check names, as ParseCheck reads them.
var checkKinds = set(CheckNonEmpty, CheckHeadings, CheckMaxWords, CheckMinWords, CheckSources, CheckSourcesTools,
	CheckNoPlaceholders, CheckJSONSchema, CheckCodeBlocks, CheckRun)

// Many templates have a Verify section of their own: prose ("Every
// finding has a source tag.") or a table. Only lines written in icm's
// check grammar are checks; the rest is kept and shown.
func (p *parser) verify(s markdown.Section) {
	lines := entries(s)
	text := 0
	for _, l := range lines {
		if !checkLine(l.Text) {
			text++
			continue
		}
		c, err := ParseCheck(l.Text)
		if errors.Is(err, ErrUnknownCheck) {
			p.unknownCheck(l)
			continue
		}
		if err != nil {
			p.add(l.Range, Error, CodeBadVerify, err.Error())
			continue
		}
		c.Range = l.Range
		if c.Kind == "run" {
			c.Arg, _ = p.c.vars.Expand(c.Arg)
		}
		p.c.Verify = append(p.c.Verify, c)
	}
	hasTable := false
	for _, b := range s.Blocks {
		hasTable = hasTable || b.Kind == markdown.BlockTable
	}
	switch {
	case len(lines) == 0 && !hasTable:
		p.add(s.Heading.TextRange, Info, CodeKeptAsText, "the Verify section is empty; icm runs no check (list checks such as `- non-empty`)")
	case text > 0 || hasTable:
		msg := "the Verify section is not written as icm checks; it is kept and shown, and icm runs no check from it"
		if n := len(p.c.Verify); n > 0 {
			msg = fmt.Sprintf("icm runs the %s listed in Verify; its other lines are kept and shown", plural(n, "check"))
		}
		p.add(s.Heading.TextRange, Info, CodeKeptAsText, msg)
	}
}

// checkLine reports whether a Verify line is written in icm's check
// grammar (rightly or wrongly) rather than as a sentence: "headings 2..6"
// and "max-words lots" are; "Sources are cited." is not.
func checkLine(line string) bool {
	text := strings.TrimSpace(line)
	if strings.HasPrefix(text, "`") || strings.HasPrefix(strings.ToLower(text), "run:") {
		return true
	}
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	kind := strings.ToLower(name)
	if !checkKinds[kind] {
		// One lower-case word, or a slip of a check's name with its
		// argument ("max-word 250"), reads as an attempt at a check, to be
		// told which ones exist; anything else is prose.
		return name == kind && !strings.ContainsAny(name, ".,;:!?") && (arg == "" || nearCheck(kind) != "")
	}
	switch kind {
	case CheckNonEmpty, CheckSources, CheckSourcesTools, CheckNoPlaceholders:
		return arg == "" || strings.Contains(kind, "-")
	case CheckHeadings:
		_, _, err := ParseCount(arg)
		return err == nil || len(strings.Fields(arg)) <= 1
	}
	return true
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// nearCheck is the check a name not among them is a slip of, or "".
func nearCheck(name string) string {
	return suggest.Nearest(name, checkNames())
}

// checkNames lists the checks' names, sorted.
func checkNames() []string {
	names := make([]string, 0, len(checkKinds))
	for k := range checkKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// unknownCheck notes a Verify line naming no check: a warning, since the
// run goes ahead, saying the check is not run, with the check meant as
// its fix (Data "suggest", on the name) when one is close.
func (p *parser) unknownCheck(l markdown.Line) {
	name, _, _ := strings.Cut(strings.Trim(strings.TrimSpace(l.Text), "`"), " ")
	at := l.Range
	if i := strings.Index(l.Text, name); i >= 0 {
		at = l.Sub(i, len(name))
	}
	f := Finding{File: p.c.File, Range: at, Severity: Warning, Code: CodeBadVerify,
		Message: fmt.Sprintf("unknown check %q, so icm does not run it; known: %s", name, strings.Join(CheckNames, ", "))}
	if near := nearCheck(strings.ToLower(name)); near != "" {
		f.Message = fmt.Sprintf("unknown check %q, so icm does not run it: did you mean %q?", name, near)
		f.Data = map[string]string{"suggest": near}
	}
	p.c.Findings = append(p.c.Findings, f)
}
