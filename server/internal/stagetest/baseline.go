package stagetest

import (
	"github.com/icm-tool/icm/server/internal/report"
)

// Compare compares each cell's pass rate with the baseline's: better or
// worse by rate (k/N), same, new (not in the baseline) or gone (only in
// the baseline). Cells are in the current run's order, gone ones last.
func Compare(base, cur *report.TestReport) *report.TestComparison {
	cmp := &report.TestComparison{Baseline: base.RunID, Changes: []report.TestChange{}}
	hash := func(rep *report.TestReport) map[string]string {
		m := map[string]string{}
		for _, c := range rep.Cases {
			m[c.ID] = c.Hash
		}
		return m
	}
	bh, ch := hash(base), hash(cur)
	seen := map[[2]string]bool{}
	for _, row := range cur.Matrix {
		c := report.TestChange{Case: row.Case, Model: row.Model, After: row.Rate()}
		b, ok := base.Row(row.Case, row.Model)
		seen[[2]string{row.Case, row.Model}] = true
		switch {
		case !ok:
			c.Kind = report.ChangeNew
		default:
			c.Before = b.Rate()
			c.CaseChanged = bh[row.Case] != "" && bh[row.Case] != ch[row.Case]
			now, then := rate(row), rate(b)
			switch {
			case now < then:
				c.Kind, c.FirstFailure = report.ChangeWorse, row.FirstFailure
				cmp.Worse++
			case now > then:
				c.Kind = report.ChangeBetter
				cmp.Better++
			default:
				c.Kind = report.ChangeSame
			}
		}
		cmp.Changes = append(cmp.Changes, c)
	}
	for _, b := range base.Matrix {
		if !seen[[2]string{b.Case, b.Model}] {
			cmp.Changes = append(cmp.Changes, report.TestChange{Case: b.Case, Model: b.Model, Kind: report.ChangeGone, Before: b.Rate()})
		}
	}
	return cmp
}

func rate(r report.TestRow) float64 {
	if r.Runs == 0 {
		return 0
	}
	return float64(r.Passed) / float64(r.Runs)
}
