package testcase

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
)

// CaseWords lists the expectation forms only cases have.
var CaseWords = []string{
	`contains "TEXT"`, `not-contains "TEXT"`, "matches `REGEX`", "sections N..M", "rubric >= N: CRITERION", "verify passes|fails",
}

// Words lists every expectation form, the Verify checks included, for
// messages, completion and help.
var Words = append(append([]string{}, CaseWords...), contract.CheckNames...)

var rubricLine = regexp.MustCompile(`(?i)^rubric\s*(?:(?:>=|≥|at least)?\s*([0-9]+(?:\.[0-9]+)?))?\s*:\s*(.*)$`)

// ParseExpectation reads one Expect line (without its list marker). The
// error says what is wrong and shows the right form.
func ParseExpectation(line string) (Expectation, error) {
	text := strings.TrimSpace(line)
	e := Expectation{Text: text}
	word, rest, _ := strings.Cut(text, " ")
	word = strings.ToLower(strings.Trim(word, "`"))
	rest = strings.TrimSpace(rest)
	switch {
	case word == KindContains || word == KindNotContains:
		v, err := literal(rest)
		if err != nil {
			return e, fmt.Errorf("%s needs the text to look for, e.g. `%s \"Ollama\"`: %v", word, word, err)
		}
		e.Kind, e.Value = word, v
	case word == KindMatches:
		v, err := literal(rest)
		if err != nil {
			return e, fmt.Errorf("matches needs a regular expression, e.g. matches `(?m)^1\\. `: %v", err)
		}
		if _, err := regexp.Compile(v); err != nil {
			return e, fmt.Errorf("matches: %q is not a valid regular expression (Go syntax): %v", v, err)
		}
		e.Kind, e.Value = KindMatches, v
	case word == KindVerify || word == KindVerify+":":
		switch v := strings.ToLower(strings.Trim(rest, "` ")); v {
		case "passes", "fails":
			e.Kind, e.Value = KindVerify, v
		default:
			return e, fmt.Errorf("verify takes `passes` or `fails` (the outcome of the stage's own Verify checks); got %q", rest)
		}
	case word == KindSections:
		min, max, err := contract.ParseCount(rest)
		if err != nil {
			return e, fmt.Errorf("sections needs a count or a range of `##` sections, e.g. `sections 3..6`; got %q", rest)
		}
		e.Kind = KindSections
		e.Check = &contract.Check{Kind: contract.CheckHeadings, Arg: rest, Min: min, Max: max}
	case strings.HasPrefix(strings.ToLower(text), "rubric"):
		m := rubricLine.FindStringSubmatch(text)
		if m == nil {
			return e, errors.New("a rubric line is `rubric: CRITERION` or `rubric >= 8: CRITERION` (a score from 0 to 10 the judge must reach)")
		}
		e.Kind, e.Threshold = KindRubric, DefaultThreshold
		if m[1] != "" {
			t, err := strconv.ParseFloat(m[1], 64)
			if err != nil || t < 0 || t > 10 {
				return e, fmt.Errorf("a rubric threshold is a score from 0 to 10; got %s", m[1])
			}
			e.Threshold = t
		}
		if e.Value = strings.TrimSpace(m[2]); e.Value == "" {
			return e, errors.New("the rubric line names no criterion: say what a good output does, e.g. `rubric: every objective starts with a verb`")
		}
	default:
		c, err := contract.ParseCheck(text)
		if errors.Is(err, contract.ErrUnknownCheck) {
			return e, fmt.Errorf("unknown expectation %q; known: %s", word, strings.Join(Words, ", "))
		}
		if err != nil {
			return e, err
		}
		e.Kind, e.Check = c.Kind, &c
	}
	return e, nil
}

// literal reads a quoted ("...", with Go escapes), backticked or bare text.
func literal(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", errors.New("nothing given")
	case s[0] == '"':
		v, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("%s is not a closed, valid quoted string", s)
		}
		if v == "" {
			return "", errors.New("the quotes hold nothing")
		}
		return v, nil
	case s[0] == '`':
		if len(s) < 3 || s[len(s)-1] != '`' {
			return "", fmt.Errorf("%s opens a backtick it does not close", s)
		}
		return s[1 : len(s)-1], nil
	}
	return s, nil
}
