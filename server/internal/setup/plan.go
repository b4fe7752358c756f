package setup

import (
	"sort"
	"strings"
)

// Ask is one thing icm setup asks: a question whose answer fills one or
// more variables.
type Ask struct {
	// Vars are the variables the answer fills.
	Vars []string `json:"vars"`
	// Question is what is asked: the questionnaire's words, or "Value of
	// {{NAME}}" for a variable no questionnaire asks for.
	Question string `json:"question"`
	// From says where the question comes from ("setup/questionnaire.md
	// Q2", or "" for a variable the workspace's texts hold).
	From    string   `json:"from,omitempty"`
	Options []string `json:"options,omitempty"`
	// Default is the answer taken for an empty one; Current the value
	// [vars] already gives ("" when unset).
	Default string `json:"default,omitempty"`
	Current string `json:"current,omitempty"`
}

// Plan is what icm setup asks, in order.
type Plan struct {
	// Questionnaire is the file the questions come from ("" for none).
	Questionnaire string `json:"questionnaire,omitempty"`
	Asks          []Ask  `json:"asks"`
	// Unmapped counts the questionnaire's questions that fill no
	// variable icm can name (they are for an agent to act on).
	Unmapped int `json:"unmapped,omitempty"`
}

// NewPlan lists what to ask: the questionnaire's questions (q may be nil)
// that fill a variable, each named with file, then each variable the
// workspace's texts leave unset (unset) that no question fills. set is
// what [vars] gives now; with all false, an ask whose every variable is
// set already is left out.
func NewPlan(q *Questionnaire, file string, unset []string, set map[string]string, all bool) *Plan {
	p := &Plan{Questionnaire: file, Asks: []Ask{}}
	covered := map[string]bool{}
	if q != nil {
		byID := map[string][]string{}
		for v, id := range q.Derived {
			byID[id] = append(byID[id], v)
		}
		for _, qq := range q.Questions {
			vars := append(append([]string{}, qq.Vars...), sorted(byID[qq.ID])...)
			if len(vars) == 0 {
				p.Unmapped++
				continue
			}
			for _, v := range vars {
				covered[v] = true
			}
			p.add(Ask{Vars: vars, Question: qq.Text, From: file + " " + qq.ID, Options: qq.Options, Default: qq.Default}, set, all)
		}
	}
	for _, v := range sorted(unset) {
		if covered[v] {
			continue
		}
		covered[v] = true
		p.add(Ask{Vars: []string{v}, Question: "Value of {{" + v + "}}"}, set, all)
	}
	return p
}

func (p *Plan) add(a Ask, set map[string]string, all bool) {
	missing := false
	for _, v := range a.Vars {
		if _, ok := set[v]; !ok {
			missing = true
		}
	}
	if !missing && !all {
		return
	}
	a.Current = set[a.Vars[0]]
	p.Asks = append(p.Asks, a)
}

// Answer is what a person answered: the value, or "" to take the default
// (and, with none, to leave the variables unset).
func (a Ask) Answer(given string) (string, bool) {
	given = strings.TrimSpace(given)
	if given == "" {
		given = a.Default
	}
	if given == "" {
		return "", false
	}
	// A choice may be answered by its number.
	if n := choiceIndex(given, len(a.Options)); n >= 0 {
		given = a.Options[n]
	}
	return given, true
}

func choiceIndex(s string, n int) int {
	if len(s) > 2 || n == 0 {
		return -1
	}
	i := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return -1
		}
		i = i*10 + int(r-'0')
	}
	if i < 1 || i > n {
		return -1
	}
	return i - 1
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
