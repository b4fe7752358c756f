package check

// This file holds the severity and basis every finding ends with, and the
// report's findings in order.

import (
	"sort"

	"github.com/icm-tool/icm/server/internal/contract"
)

// settle gives every finding its basis and holds the rule that only a
// certain fact that stops the stage is an error (contract.Settle: one
// resting on how icm read someone else's notation is a note, any other
// a warning), then drops a finding that says what another at the same
// place already says.
func settle(fs []contract.Finding) []contract.Finding {
	type key struct {
		file  string
		start int
		code  string
		rule  string
		// section tells apart the sections a missing-section finding
		// names: two at a contract's title say two things.
		section string
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		f = contract.Settle(f)
		k := key{f.File, f.Range.Start, f.Code, f.Data["rule"], f.Data["section"]}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

func sortFindings(fs []contract.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Range.Start < fs[j].Range.Start
	})
}
