package trust

import "fmt"

// Change is one part a workspace names now that its grant did not cover.
type Change struct {
	Part Part `json:"part"`
	// Was is the value the grant had at the same place ("" when the
	// place is new).
	Was string `json:"was,omitempty"`
}

// String says the change in one line.
func (c Change) String() string {
	if c.Was != "" {
		return fmt.Sprintf("%s changed: %s was %s, now %s", c.Part.Where, c.Part.Kind.Verb(), c.Was, c.Part.Value)
	}
	return fmt.Sprintf("new: %s %s (%s)", c.Part.Kind.Verb(), c.Part.Value, c.Part.Where)
}

// Uncovered lists the parts of now that granted does not hold, each with
// the value granted had at the same place when it had one. Parts granted
// holds that now lacks are no change that matters: a workspace that
// names less does less.
func Uncovered(granted, now Parts) []Change {
	have := map[Part]bool{}
	at := map[string][]string{}
	for _, p := range granted {
		have[p] = true
		k := string(p.Kind) + "\x00" + p.Where
		at[k] = append(at[k], p.Value)
	}
	used := map[string]int{}
	var out []Change
	for _, p := range now.sorted() {
		if have[p] {
			continue
		}
		c := Change{Part: p}
		k := string(p.Kind) + "\x00" + p.Where
		// Pair the new value with a granted one at the same place that
		// the workspace no longer names.
		for i := used[k]; i < len(at[k]); i++ {
			was := at[k][i]
			if !now.has(Part{Kind: p.Kind, Where: p.Where, Value: was}) {
				c.Was = was
				used[k] = i + 1
				break
			}
		}
		out = append(out, c)
	}
	return out
}

func (ps Parts) has(p Part) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
