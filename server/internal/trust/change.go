package trust

import (
	"fmt"
	"strings"
)

// Change is one part a workspace names now that its grant did not cover.
type Change struct {
	Part Part `json:"part"`
	// Was is the value the grant had at the same place ("" when the
	// place is new, or when the value is the same and Files say what
	// changed).
	Was string `json:"was,omitempty"`
	// Files say what changed in the files the command runs, when the
	// command line is the one granted: "tools/build.sh changed since you
	// trusted it".
	Files []string `json:"files,omitempty"`
}

// String says the change in one line.
func (c Change) String() string {
	switch {
	case len(c.Files) > 0:
		return fmt.Sprintf("%s (%s %s, %s)", strings.Join(c.Files, "; "), c.Part.Kind.Verb(), c.Part.Value, c.Part.Where)
	case c.Was != "":
		return fmt.Sprintf("%s changed: %s was %s, now %s", c.Part.Where, c.Part.Kind.Verb(), c.Was, c.Part.Value)
	}
	return fmt.Sprintf("new: %s %s (%s)", c.Part.Kind.Verb(), c.Part.Value, c.Part.Where)
}

// Uncovered lists the parts of now that granted does not hold, each with
// the value granted had at the same place when it had one, or, for the
// same command line, what changed in the files it runs. Parts granted
// holds that now lacks are no change that matters: a workspace that
// names less does less; so is a file a command no longer runs.
func Uncovered(granted, now Parts) []Change {
	same := map[string][]Part{}
	at := map[string][]string{}
	for _, p := range granted {
		same[p.at()] = append(same[p.at()], p)
		k := string(p.Kind) + "\x00" + p.Where
		at[k] = append(at[k], p.Value)
	}
	named := map[string]bool{}
	for _, p := range now {
		named[p.at()] = true
	}
	used := map[string]int{}
	var out []Change
	for _, p := range now.sorted() {
		if g := same[p.at()]; len(g) > 0 {
			if files := pinChanges(g, p.Pins); len(files) > 0 {
				out = append(out, Change{Part: p, Files: files})
			}
			continue
		}
		c := Change{Part: p}
		k := string(p.Kind) + "\x00" + p.Where
		// Pair the new value with a granted one at the same place that
		// the workspace no longer names.
		for i := used[k]; i < len(at[k]); i++ {
			was := at[k][i]
			if !named[string(p.Kind)+"\x00"+p.Where+"\x00"+was] {
				c.Was = was
				used[k] = i + 1
				break
			}
		}
		out = append(out, c)
	}
	return out
}

// pinChanges says what the pins of a command hold that none of its
// grants (the same command line, granted) held; nothing when one grant
// held them all.
func pinChanges(granted []Part, pins []Pin) []string {
	var best []string
	for i, g := range granted {
		held := map[Pin]bool{}
		files := map[string]Pin{}
		for _, q := range g.Pins {
			held[q] = true
			if q.File != "" {
				files[q.File] = q
			}
		}
		var what []string
		for _, p := range pins {
			if !held[p] {
				what = append(what, p.change(files))
			}
		}
		if len(what) == 0 {
			return nil
		}
		if i == 0 || len(what) < len(best) {
			best = what
		}
	}
	return best
}
