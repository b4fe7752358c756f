// Package testreport reads the event stream of `go test -json` and writes
// what a person wants from a whole test run: go test's own lines for each
// package, the output of every test that failed, build failures, and at
// the end the tests that were skipped and why. Skips are what a plain `go
// test ./...` hides: a test that needs a program this machine lacks skips
// without a word, and the run reads green. make test pipes through it.
package testreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail lines
	Test       string
	Output     string
}

// Skip is one skipped test with its reason.
type Skip struct {
	Package, Test, Reason string
}

// Summary is what a run came to.
type Summary struct {
	Passed, Failed, Skipped int
	// BuildFailed counts packages that did not build.
	BuildFailed int
	Skips       []Skip
}

// OK reports whether nothing failed.
func (s *Summary) OK() bool { return s.Failed == 0 && s.BuildFailed == 0 }

type key struct{ pkg, test string }

// Run reads the event stream from r and writes the report to w as it
// goes, the skipped tests last. A line that is not an event (go test's
// own errors) is copied as it is.
func Run(r io.Reader, w io.Writer) (*Summary, error) {
	sum := &Summary{}
	held := map[key][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "build-output":
			fmt.Fprint(w, ev.Output)
		case "build-fail":
			sum.BuildFailed++
		case "output":
			if ev.Test == "" {
				// The package's own lines: "ok pkg 1.2s", "FAIL pkg",
				// a panic, what TestMain printed.
				if ev.Output != "PASS\n" {
					fmt.Fprint(w, ev.Output)
				}
				continue
			}
			held[k] = append(held[k], ev.Output)
		case "pass":
			if ev.Test != "" {
				sum.Passed++
			}
			delete(held, k)
		case "skip":
			if ev.Test != "" {
				sum.Skipped++
				sum.Skips = append(sum.Skips, Skip{Package: ev.Package, Test: ev.Test, Reason: reason(held[k])})
			}
			delete(held, k)
		case "fail":
			if ev.Test != "" {
				sum.Failed++
				writeFailed(w, held[k])
			}
			delete(held, k)
		}
	}
	if err := sc.Err(); err != nil {
		return sum, fmt.Errorf("unable to read the test events: %w", err)
	}
	writeSkips(w, sum)
	return sum, nil
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

// place is the "file_test.go:12: " go test puts before a test's log line.
var place = regexp.MustCompile(`^\S+\.go:\d+: ?`)

// reason is the skip message in a test's output, on one line: its log
// lines without their places, banner rules and frames left out.
func reason(out []string) string {
	var parts []string
	for _, o := range out {
		if strings.HasPrefix(o, "=== ") || strings.HasPrefix(strings.TrimSpace(o), "--- ") {
			continue
		}
		for _, l := range strings.Split(o, "\n") {
			l = strings.TrimSpace(place.ReplaceAllString(strings.TrimSpace(l), ""))
			l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "*"), "*"))
			if strings.Trim(l, "*") == "" {
				continue
			}
			parts = append(parts, l)
		}
	}
	r := strings.Join(parts, " ")
	if r == "" {
		return "(no reason given)"
	}
	if rs := []rune(r); len(rs) > 240 {
		r = string(rs[:240]) + "…"
	}
	return r
}

// writeSkips lists the skipped tests, one line per package and reason,
// and the totals.
func writeSkips(w io.Writer, sum *Summary) {
	type group struct {
		pkg, reason string
		tests       []string
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, s := range sum.Skips {
		g, ok := index[[2]string{s.Package, s.Reason}]
		if !ok {
			g = &group{pkg: s.Package, reason: s.Reason}
			index[[2]string{s.Package, s.Reason}] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, s.Test)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].pkg < groups[j].pkg })
	fmt.Fprintln(w)
	if len(groups) == 0 {
		fmt.Fprintln(w, "skipped: none")
	} else {
		fmt.Fprintf(w, "skipped: %d %s, and why:\n", sum.Skipped, plural(sum.Skipped, "test", "tests"))
		for _, g := range groups {
			names := g.tests
			more := ""
			if len(names) > 4 {
				more = fmt.Sprintf(" and %d more", len(names)-4)
				names = names[:4]
			}
			fmt.Fprintf(w, "  %s %s%s: %s\n", g.pkg, strings.Join(names, ", "), more, g.reason)
		}
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped", sum.Passed, sum.Failed, sum.Skipped)
	if sum.BuildFailed > 0 {
		fmt.Fprintf(w, "; %d %s did not build", sum.BuildFailed, plural(sum.BuildFailed, "package", "packages"))
	}
	fmt.Fprintln(w)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
