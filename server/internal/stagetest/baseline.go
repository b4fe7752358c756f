package stagetest

import "fmt"

// Kinds of change against a baseline.
const (
	ChangeBetter = "better"
	ChangeWorse  = "worse"
	ChangeSame   = "same"
	ChangeNew    = "new"
	ChangeGone   = "gone"
)

// Change is one matrix cell compared with the same cell of a baseline run.
type Change struct {
	Case  string `json:"case"`
	Model string `json:"model"`
	Kind  string `json:"kind"`
	// Before and After are "k/N" ("" when the cell is not in that run).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// FirstFailure is the current run's first failure (worse cells).
	FirstFailure string `json:"first_failure,omitempty"`
	// CaseChanged says the case file differs from the baseline's.
	CaseChanged bool `json:"case_changed,omitempty"`
}

// Comparison is a run against its baseline.
type Comparison struct {
	Baseline string   `json:"baseline"`
	Changes  []Change `json:"changes"`
	Better   int      `json:"better"`
	Worse    int      `json:"worse"`
}

// Compare compares each cell's pass rate with the baseline's: better or
// worse by rate (k/N), same, new (not in the baseline) or gone (only in
// the baseline). Cells are in the current run's order, gone ones last.
func Compare(base, cur *Report) *Comparison {
	cmp := &Comparison{Baseline: base.RunID, Changes: []Change{}}
	hash := func(rep *Report) map[string]string {
		m := map[string]string{}
		for _, c := range rep.Cases {
			m[c.ID] = c.Hash
		}
		return m
	}
	bh, ch := hash(base), hash(cur)
	seen := map[[2]string]bool{}
	for _, row := range cur.Matrix {
		c := Change{Case: row.Case, Model: row.Model, After: row.Rate()}
		b, ok := base.Row(row.Case, row.Model)
		seen[[2]string{row.Case, row.Model}] = true
		switch {
		case !ok:
			c.Kind = ChangeNew
		default:
			c.Before = b.Rate()
			c.CaseChanged = bh[row.Case] != "" && bh[row.Case] != ch[row.Case]
			now, then := rate(row), rate(b)
			switch {
			case now < then:
				c.Kind, c.FirstFailure = ChangeWorse, row.FirstFailure
				cmp.Worse++
			case now > then:
				c.Kind = ChangeBetter
				cmp.Better++
			default:
				c.Kind = ChangeSame
			}
		}
		cmp.Changes = append(cmp.Changes, c)
	}
	for _, b := range base.Matrix {
		if !seen[[2]string{b.Case, b.Model}] {
			cmp.Changes = append(cmp.Changes, Change{Case: b.Case, Model: b.Model, Kind: ChangeGone, Before: b.Rate()})
		}
	}
	return cmp
}

func rate(r Row) float64 {
	if r.Runs == 0 {
		return 0
	}
	return float64(r.Passed) / float64(r.Runs)
}

// String is the change as a report line.
func (c Change) String() string {
	s := fmt.Sprintf("%s %s × %s", c.Kind, c.Case, c.Model)
	switch c.Kind {
	case ChangeNew:
		s += ": " + c.After + " (not in the baseline)"
	case ChangeGone:
		s += ": was " + c.Before + ", not run now"
	default:
		s += ": " + c.Before + " → " + c.After
	}
	if c.CaseChanged {
		s += " (the case changed)"
	}
	if c.FirstFailure != "" {
		s += "; first failure: " + c.FirstFailure
	}
	return s
}
