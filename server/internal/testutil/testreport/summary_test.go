package testreport

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// summaryRun is a recorded `go test -timeout 2s -json ./...` of a scratch
// module of our own: in jt/a a test that logs then fails, a parent whose
// subtest fails, a panic and two skips; in jt/b a skip with the same
// reason as one in jt/a; jt/slow runs past the timeout; jt/exits passes
// its tests and then exits 1 from TestMain; jt/bad does not build.
const summaryRun = "testdata/summary.jsonl"

// events returns the recorded lines of summaryRun, only those of the
// packages named when some are.
func events(t *testing.T, pkgs ...string) string {
	t.Helper()
	f, err := os.Open(summaryRun)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		keep := len(pkgs) == 0
		for _, p := range pkgs {
			keep = keep || strings.Contains(sc.Text(), `"Package":"`+p+`"`)
		}
		if keep {
			b.WriteString(sc.Text() + "\n")
		}
	}
	return b.String()
}

func report(t *testing.T, stream string) (*Summary, string) {
	t.Helper()
	var b strings.Builder
	sum, err := Run(strings.NewReader(stream), &b)
	if err != nil {
		t.Fatal(err)
	}
	return sum, b.String()
}

// The closing summary: the failures first, each with its package and the
// first line of why, then the skips grouped by reason (one group for the
// same reason in two packages), then the counts, last.
func TestSummaryListsFailuresThenSkipsThenCounts(t *testing.T) {
	sum, out := report(t, events(t))
	want := `
failed, each with the first line of why:
  a TestFails: a_test.go:8: a line before the failure
  a TestParent/sub: a_test.go:14: the subtest broke
  a TestPanics: panic: assignment to entry in nil map [recovered, repanicked]
  bad: did not build: bad/b.go:3:9: undefined: undefined
  exits: failed outside its tests: leftover files in /tmp/x
  slow TestHangs: did not finish: panic: test timed out after 2s
skipped, and why:
  needs ../shared: there is no folder /x/shared beside the repository (2 tests):
    a: TestNeedsShared
    b: TestAlsoNeedsShared
  needs xmllint: it is not on PATH (1 test):
    a: TestNeedsXmllint
tests: 5 passed, 4 failed, 3 skipped; 1 package did not build, 1 package failed outside its tests
`
	if !strings.HasSuffix(out, want) {
		t.Errorf("the report does not end with the summary\n%s\nit ends:\n%s", want, tail(out, 20))
	}
	if sum.OK() || sum.Passed != 5 || sum.Failed != 4 || sum.Skipped != 3 {
		t.Errorf("summary %+v", sum)
	}
	// The timed-out test's panic reaches the report, not only the summary.
	if !strings.Contains(out, "\t\tTestHangs (2s)\n") {
		t.Errorf("the timeout's output is not shown:\n%s", out)
	}
}

// A package that fails with no failed test (a timeout, TestMain exiting
// 1) fails the run.
func TestAFailedPackageWithoutAFailedTestFailsTheRun(t *testing.T) {
	for _, pkg := range []string{"jt/slow", "jt/exits"} {
		if sum, out := report(t, events(t, pkg)); sum.OK() {
			t.Errorf("%s: the run is OK:\n%s", pkg, out)
		}
	}
	if sum, out := report(t, events(t, "jt/b")); !sum.OK() || !strings.HasSuffix(out, "\nfailed: none\n"+
		"skipped, and why:\n  needs ../shared: there is no folder /x/shared beside the repository (1 test):\n    jt/b: TestAlsoNeedsShared\n"+
		"tests: 1 passed, 0 failed, 1 skipped\n") {
		t.Errorf("jt/b alone: %+v\n%s", sum, out)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
