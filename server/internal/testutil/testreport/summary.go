package testreport

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// writeSummary ends the report: what failed, each with the first line of
// why; the skipped tests grouped by reason (one group per reason across
// packages, so every test skipped for one missing thing reads as one);
// then the counts.
func writeSummary(w io.Writer, sum *Summary) {
	short := shortNames(sum.packages)
	fmt.Fprintln(w)
	if len(sum.Failures) == 0 {
		fmt.Fprintln(w, "failed: none")
	} else {
		fails := append([]Failure(nil), sum.Failures...)
		sort.SliceStable(fails, func(i, j int) bool { return fails[i].Package < fails[j].Package })
		fmt.Fprintln(w, "failed, each with the first line of why:")
		for _, f := range fails {
			fmt.Fprintf(w, "  %s: %s\n", strings.TrimSpace(short(f.Package)+" "+f.Test), f.Reason)
		}
	}
	writeSkips(w, sum.Skips, short)
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped", sum.Passed, sum.Failed, sum.Skipped)
	var pkgs []string
	if sum.BuildFailed > 0 {
		pkgs = append(pkgs, fmt.Sprintf("%d %s did not build", sum.BuildFailed, plural(sum.BuildFailed, "package", "packages")))
	}
	if sum.OutsideTests > 0 {
		pkgs = append(pkgs, fmt.Sprintf("%d %s failed outside its tests", sum.OutsideTests, plural(sum.OutsideTests, "package", "packages")))
	}
	if len(pkgs) > 0 {
		fmt.Fprint(w, "; "+strings.Join(pkgs, ", "))
	}
	fmt.Fprintln(w)
}

// writeSkips lists the skips by reason, most tests first, and under each
// reason one line per package with its tests.
func writeSkips(w io.Writer, skips []Skip, short func(string) string) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "skipped: none")
		return
	}
	type group struct {
		reason string
		n      int
		pkgs   []string
		tests  map[string][]string
	}
	var groups []*group
	byReason := map[string]*group{}
	for _, s := range skips {
		g := byReason[s.Reason]
		if g == nil {
			g = &group{reason: s.Reason, tests: map[string][]string{}}
			byReason[s.Reason] = g
			groups = append(groups, g)
		}
		if g.tests[s.Package] == nil {
			g.pkgs = append(g.pkgs, s.Package)
		}
		g.tests[s.Package] = append(g.tests[s.Package], s.Test)
		g.n++
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].n != groups[j].n {
			return groups[i].n > groups[j].n
		}
		return groups[i].reason < groups[j].reason
	})
	fmt.Fprintln(w, "skipped, and why:")
	for _, g := range groups {
		fmt.Fprintf(w, "  %s (%d %s):\n", g.reason, g.n, plural(g.n, "test", "tests"))
		sort.Strings(g.pkgs)
		for _, p := range g.pkgs {
			fmt.Fprintf(w, "    %s: %s\n", short(p), strings.Join(g.tests[p], ", "))
		}
	}
}

// shortNames returns a function that drops from a package's path what
// every package of the run shares ("github.com/org/repo/"), when the run
// has more than one.
func shortNames(pkgs map[string]bool) func(string) string {
	prefix, first := "", true
	for p := range pkgs {
		if first {
			prefix, first = p, false
			continue
		}
		for !strings.HasPrefix(p, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if len(pkgs) < 2 {
		prefix = ""
	}
	prefix = prefix[:strings.LastIndex(prefix, "/")+1]
	return func(p string) string { return strings.TrimPrefix(p, prefix) }
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
