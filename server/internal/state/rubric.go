package state

import "fmt"

// RubricCheck is one line of a review rubric checked on one output: a
// section the output must have, a term it must or must not use, a path
// it must cite, the columns of a table, a count of links or paths. A note
// (Required Artifact Shapes, a heading icm does not know) is shown and
// never fails.
type RubricCheck struct {
	// Rubric is the rubric file, Output the file checked (both
	// workspace-relative).
	Rubric string `json:"rubric"`
	Output string `json:"output"`
	// Section is the rubric's heading as written; Kind what icm makes of
	// it (rubric.Kind*).
	Section string `json:"section"`
	Kind    string `json:"kind"`
	// Item is the rubric's line as written ("Risks", "TODO", "3").
	Item string `json:"item,omitempty"`
	OK   bool   `json:"ok"`
	// Note is set for a line that is shown and never checked.
	Note bool `json:"note,omitempty"`
	// Message says what is wrong (`missing section "Risks"`), or what the
	// note is; Line is the output's line when there is one.
	Message string `json:"message,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// RubricFailed reports whether any rubric check of the run failed.
func (r *Record) RubricFailed() bool {
	for _, c := range r.Rubric {
		if !c.OK && !c.Note {
			return true
		}
	}
	return false
}

// RubricCount counts the rubric checks that pass and all of them, notes
// left out, and returns the first failure's message.
func RubricCount(checks []RubricCheck) (pass, of int, first string) {
	for _, c := range checks {
		if c.Note {
			continue
		}
		of++
		if c.OK {
			pass++
		} else if first == "" {
			first = c.Message
		}
	}
	return pass, of, first
}

// RubricLine sums the rubric checks up in one line, the same in the
// record's readers: "3 of 4 rubric checks pass: missing section "Risks"";
// "" when there are none.
func RubricLine(checks []RubricCheck) string {
	pass, of, first := RubricCount(checks)
	if of == 0 {
		return ""
	}
	words := "rubric checks pass"
	if of == 1 {
		words = "rubric check passes"
	}
	line := fmt.Sprintf("%d of %d %s", pass, of, words)
	if first != "" {
		line += ": " + first
	}
	return line
}
