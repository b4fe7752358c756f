package contract

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Verify check names.
const (
	CheckNonEmpty       = "non-empty"
	CheckHeadings       = "headings"
	CheckMaxWords       = "max-words"
	CheckMinWords       = "min-words"
	CheckSources        = "sources"
	CheckSourcesTools   = "sources-from-tools"
	CheckNoPlaceholders = "no-placeholders"
	CheckJSONSchema     = "json-schema"
	CheckCodeBlocks     = "code-blocks"
	CheckRun            = "run"
)

// CheckNames lists the Verify checks as a person writes them, for
// messages and completion.
var CheckNames = []string{"non-empty", "headings N..M", "max-words N", "min-words N", "sources", "sources-from-tools", "no-placeholders", "json-schema FILE", "code-blocks parse|run", "run: COMMAND"}

var countRange = regexp.MustCompile(`^(\d+)?\s*(?:\.\.|-|–)?\s*(\d+)?$`)

// ErrUnknownCheck is wrapped by ParseCheck's error when the line names no
// known check, so callers with a wider grammar (stage test cases) can try
// their own words first.
var ErrUnknownCheck = errors.New("unknown check")

// ParseCheck reads one Verify line ("headings 2..8", "run: ./check.sh",
// optionally in backticks) into a Check without a range. The error says
// what is wrong and shows the right form.
func ParseCheck(line string) (Check, error) {
	text := strings.Trim(strings.TrimSpace(line), "`")
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	if strings.HasPrefix(strings.ToLower(text), "run:") {
		name, arg = CheckRun, strings.TrimSpace(text[len("run:"):])
	}
	c := Check{Kind: strings.ToLower(name), Arg: arg, Min: -1, Max: -1}
	switch c.Kind {
	case CheckNonEmpty, CheckSources, CheckSourcesTools, CheckNoPlaceholders:
	case CheckHeadings:
		min, max, err := ParseCount(arg)
		if err != nil {
			return c, fmt.Errorf("headings needs a count or a range, e.g. `headings 3..8`; got %q", arg)
		}
		c.Min, c.Max = min, max
	case CheckMaxWords, CheckMinWords:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s needs a positive number, e.g. `%s 1500`", c.Kind, c.Kind)
		}
		if c.Kind == CheckMaxWords {
			c.Max = n
		} else {
			c.Min = n
		}
	case CheckJSONSchema:
		if arg == "" {
			return c, errors.New("json-schema needs a schema file, e.g. `json-schema references/schema.json`")
		}
	case CheckCodeBlocks:
		if arg != "parse" && arg != "run" {
			return c, fmt.Errorf("code-blocks takes `parse` or `run`; got %q", arg)
		}
	case CheckRun:
		if arg == "" {
			return c, errors.New("run: needs a command, e.g. `run: ./check.sh`")
		}
	default:
		return c, fmt.Errorf("%w %q; known: %s", ErrUnknownCheck, name, strings.Join(CheckNames, ", "))
	}
	return c, nil
}

// ParseCount reads "3", "2..8", "2-8", "..8" or "2.." into bounds, -1
// for an open end; a single number is an exact count.
func ParseCount(arg string) (min, max int, err error) {
	m := countRange.FindStringSubmatch(arg)
	if arg == "" || m == nil || m[1] == "" && m[2] == "" {
		return -1, -1, fmt.Errorf("%q is not a count or a range such as 2..8", arg)
	}
	min, max = atoiOr(m[1], -1), atoiOr(m[2], -1)
	if !strings.ContainsAny(arg, ".-–") {
		max = min
	}
	return min, max, nil
}
