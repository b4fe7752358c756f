// Package setup answers a workspace's setup-time variables once: the
// `{{NAME}}` placeholders of workspaces written for the ICM template,
// asked through the workspace's questionnaire (setup/questionnaire.md)
// or one by one, and written to [vars] in config.toml, where the loader
// reads them.
package setup

import (
	"regexp"
	"strconv"
	"strings"
)

// Question is one question of a questionnaire.
type Question struct {
	// ID is the question's number as written ("Q3", "3").
	ID string `json:"id"`
	// Text is the question as written.
	Text string `json:"text"`
	// Vars are the variables its answer fills (usually one).
	Vars []string `json:"vars"`
	// Options are the answers it offers, when it is a choice.
	Options []string `json:"options,omitempty"`
	// Default is the answer taken when none is given ("" for none).
	Default string `json:"default,omitempty"`
}

// Questionnaire is a parsed questionnaire: its questions, and the
// variables derived from an answer (`{{SLUG}}` from Q2).
type Questionnaire struct {
	Questions []Question
	// Derived maps a variable to the question whose answer it takes.
	Derived map[string]string
}

var (
	varRe      = regexp.MustCompile(`\{\{\s*([A-Z][A-Z0-9_]*)\s*\}\}`)
	headingQ   = regexp.MustCompile(`^#{2,6}\s+(Q?\d+)[.:)]?\s*(.*)$`)
	numbered   = regexp.MustCompile(`^(\d+)[.)]\s+(.*)$`)
	fieldRe    = regexp.MustCompile(`^[-*]\s+([A-Za-z][A-Za-z ]*):\s*(.*)$`)
	derivedRe  = regexp.MustCompile("`?\\{\\{\\s*([A-Z][A-Z0-9_]*)\\s*\\}\\}`?\\s+(?:from|=|is derived from)\\s+(Q?\\d+)")
	defaultRe  = regexp.MustCompile(`(?i)\(default:?\s*([^)]*)\)`)
	noDefault  = regexp.MustCompile(`(?i)^\(?\s*(no default|none|required)`)
	parenthood = regexp.MustCompile(`\s*\([^)]*\)\s*$`)
)

// Parse reads a questionnaire in either notation people write: numbered
// headings with fields under them (`### Q1: ...`, `- Placeholder:
// {{X}}`, `- Options: a, b`, `- Default: a`), or a numbered list whose
// lines name their variable. A question naming no variable is kept (its
// Vars empty): icm can ask it, but has nowhere to put the answer unless
// a Derived line maps one to it.
func Parse(src string) *Questionnaire {
	q := &Questionnaire{Derived: map[string]string{}}
	var cur *Question
	fence := false
	for _, raw := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(t, "<!--") {
			continue
		}
		for _, m := range derivedRe.FindAllStringSubmatch(t, -1) {
			q.Derived[m[1]] = normalizeID(m[2])
		}
		if m := headingQ.FindStringSubmatch(t); m != nil {
			q.Questions = append(q.Questions, Question{ID: normalizeID(m[1]), Text: strings.TrimSpace(m[2])})
			cur = &q.Questions[len(q.Questions)-1]
			addVars(cur, m[2])
			continue
		}
		if strings.HasPrefix(t, "#") {
			cur = nil
			continue
		}
		if m := numbered.FindStringSubmatch(t); m != nil && raw == strings.TrimLeft(raw, " \t") {
			q.Questions = append(q.Questions, Question{ID: normalizeID(m[1]), Text: cleanText(m[2])})
			cur = &q.Questions[len(q.Questions)-1]
			addVars(cur, m[2])
			if d := defaultRe.FindStringSubmatch(m[2]); d != nil {
				cur.Default = strings.TrimSpace(d[1])
			}
			continue
		}
		if cur == nil {
			continue
		}
		if m := fieldRe.FindStringSubmatch(t); m != nil {
			switch strings.ToLower(strings.TrimSpace(m[1])) {
			case "placeholder", "placeholders", "variable", "variables", "var":
				addVars(cur, m[2])
			case "options", "choices":
				for _, o := range strings.Split(m[2], ",") {
					if o = strings.Trim(strings.TrimSpace(o), "`\""); o != "" {
						cur.Options = append(cur.Options, o)
					}
				}
			case "default":
				d := strings.Trim(strings.TrimSpace(m[2]), "`\"")
				if !noDefault.MatchString(d) {
					cur.Default = strings.TrimSpace(parenthood.ReplaceAllString(d, ""))
				}
			}
			continue
		}
		if raw != strings.TrimLeft(raw, " \t") {
			// A continuation line of a numbered question.
			addVars(cur, t)
		}
	}
	for v, id := range q.Derived {
		for _, qq := range q.Questions {
			if qq.ID == id && len(qq.Vars) == 1 && qq.Vars[0] == v {
				delete(q.Derived, v) // the question fills it already
			}
		}
	}
	return q
}

func addVars(q *Question, s string) {
	for _, m := range varRe.FindAllStringSubmatch(s, -1) {
		if !contains(q.Vars, m[1]) {
			q.Vars = append(q.Vars, m[1])
		}
	}
}

// cleanText is a numbered question without the variables it names.
func cleanText(s string) string {
	s = strings.TrimSpace(varRe.ReplaceAllString(strings.ReplaceAll(s, "`{{", "{{"), ""))
	return strings.TrimSpace(strings.Trim(s, "`"))
}

// normalizeID writes a question's number as Qn.
func normalizeID(s string) string {
	s = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "Q")
	if n, err := strconv.Atoi(s); err == nil {
		return "Q" + strconv.Itoa(n)
	}
	return "Q" + s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
