// Package testreport reads the event stream of `go test -json` and writes
// what a person wants from a whole test run: go test's own lines for each
// package, the output of every test that failed, build failures, and at
// the end a summary: what failed, each with the first line of why, then
// the tests that were skipped and why, then the counts. Skips are what a
// plain `go test ./...` hides: a test that needs a program this machine
// lacks skips without a word, and the run reads green. make test pipes
// through it.
package testreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail lines
	Test        string
	Output      string
	FailedBuild string // on a package's fail: what did not build
}

// Skip is one skipped test with its reason.
type Skip struct {
	Package, Test, Reason string
}

// Failure is one thing that failed: a test, or a package outside its
// tests (Test empty), with the first line of why.
type Failure struct {
	Package, Test, Reason string
}

// Summary is what a run came to.
type Summary struct {
	// Failed counts the failed tests; a parent test counts only when it
	// failed for a reason of its own, not merely because a subtest did.
	Passed, Failed, Skipped int
	// BuildFailed counts packages that did not build, OutsideTests those
	// that failed with no test failing (TestMain, a crash).
	BuildFailed, OutsideTests int
	Failures                  []Failure
	Skips                     []Skip
	// packages holds every package the run named, for the short names.
	packages map[string]bool
}

// OK reports whether nothing failed.
func (s *Summary) OK() bool { return len(s.Failures) == 0 }

type key struct{ pkg, test string }

// run is the state of one report while the events come in.
type run struct {
	w   io.Writer
	sum *Summary
	// held is each running test's output, printed if it fails.
	held map[key][]string
	// pkgOut and buildOut are a package's own lines and a build's output,
	// read for the first line of why when one fails.
	pkgOut, buildOut map[string][]string
}

// Run reads the event stream from r and writes the report to w as it
// goes, the summary last. A line that is not an event (go test's own
// errors) is copied as it is.
func Run(r io.Reader, w io.Writer) (*Summary, error) {
	st := &run{w: w, sum: &Summary{packages: map[string]bool{}}, held: map[key][]string{},
		pkgOut: map[string][]string{}, buildOut: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		st.event(ev)
	}
	err := sc.Err()
	if err != nil {
		err = fmt.Errorf("unable to read the test events: %w", err)
	}
	// A stream cut short (go test killed) leaves tests that never ended.
	for k := range st.held {
		st.unfinished(k.pkg)
	}
	writeSummary(w, st.sum)
	return st.sum, err
}

func (st *run) event(ev event) {
	sum, k := st.sum, key{ev.Package, ev.Test}
	if ev.Package != "" {
		sum.packages[ev.Package] = true
	}
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(st.w, ev.Output)
		st.buildOut[ev.ImportPath] = append(st.buildOut[ev.ImportPath], ev.Output)
	case ev.Test == "":
		st.packageEvent(ev)
	case ev.Action == "output":
		st.held[k] = append(st.held[k], ev.Output)
	case ev.Action == "pass":
		sum.Passed++
		delete(st.held, k)
	case ev.Action == "skip":
		sum.Skipped++
		sum.Skips = append(sum.Skips, Skip{Package: ev.Package, Test: ev.Test, Reason: reason(st.held[k])})
		delete(st.held, k)
	case ev.Action == "fail":
		writeFailed(st.w, st.held[k])
		why := firstLine(st.held[k])
		delete(st.held, k)
		if why == "" && st.failedBelow(k) {
			return // its subtest's failure is listed
		}
		if why == "" {
			why = "(no message)"
		}
		sum.Failed++
		sum.Failures = append(sum.Failures, Failure{Package: ev.Package, Test: ev.Test, Reason: why})
	}
}

// packageEvent handles a package's own lines and its end.
func (st *run) packageEvent(ev event) {
	switch ev.Action {
	case "output":
		// "ok pkg 1.2s", "FAIL pkg", a panic, what TestMain printed.
		if ev.Output != "PASS\n" {
			fmt.Fprint(st.w, ev.Output)
		}
		st.pkgOut[ev.Package] = append(st.pkgOut[ev.Package], ev.Output)
	case "fail":
		switch {
		case ev.FailedBuild != "":
			st.sum.BuildFailed++
			why := firstLine(st.buildOut[ev.FailedBuild])
			if why == "" {
				why = firstLine(st.pkgOut[ev.Package])
			}
			st.sum.Failures = append(st.sum.Failures, Failure{Package: ev.Package, Reason: "did not build: " + why})
		case !st.unfinished(ev.Package) && !st.failedIn(ev.Package):
			st.sum.OutsideTests++
			why := firstLine(st.pkgOut[ev.Package])
			if why == "" {
				why = "the test binary said nothing"
			}
			st.sum.Failures = append(st.sum.Failures, Failure{Package: ev.Package, Reason: "failed outside its tests: " + why})
		}
		delete(st.pkgOut, ev.Package)
	case "pass", "skip":
		delete(st.pkgOut, ev.Package)
	}
}

// unfinished lists as failed the tests of pkg that never ended (a
// timeout's panic ends the package, not them), printing their output,
// and reports whether there were any. A parent that is only waiting for
// its running subtest is not listed.
func (st *run) unfinished(pkg string) bool {
	var open []string
	for k := range st.held {
		if k.pkg == pkg {
			open = append(open, k.test)
		}
	}
	found := false
	for _, test := range sortedLeaves(open) {
		k := key{pkg, test}
		writeFailed(st.w, st.held[k])
		why := "did not finish"
		if l := firstLine(st.held[k]); l != "" {
			why += ": " + l
		}
		st.sum.Failed++
		st.sum.Failures = append(st.sum.Failures, Failure{Package: pkg, Test: test, Reason: why})
		found = true
	}
	for _, test := range open {
		delete(st.held, key{pkg, test})
	}
	return found
}

// failedBelow reports whether a subtest of k failed.
func (st *run) failedBelow(k key) bool {
	for _, f := range st.sum.Failures {
		if f.Package == k.pkg && strings.HasPrefix(f.Test, k.test+"/") {
			return true
		}
	}
	return false
}

// failedIn reports whether a test of pkg failed.
func (st *run) failedIn(pkg string) bool {
	for _, f := range st.sum.Failures {
		if f.Package == pkg && f.Test != "" {
			return true
		}
	}
	return false
}

// writeFailed prints a failed test's output as go test does: its
// "--- FAIL" line first, then what it logged.
func writeFailed(w io.Writer, out []string) {
	var log []string
	for _, o := range out {
		switch {
		case strings.HasPrefix(o, "=== "):
		case strings.HasPrefix(strings.TrimSpace(o), "--- FAIL"):
			fmt.Fprint(w, o)
		default:
			log = append(log, o)
		}
	}
	for _, o := range log {
		fmt.Fprint(w, o)
	}
}
