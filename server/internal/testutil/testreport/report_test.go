package testreport

import (
	"os"
	"strings"
	"testing"
)

// TestReport reads a recorded `go test -json` run (made from a scratch
// module of our own: one skip, one skip with a framed message in a
// subtest, one failure, one package that does not build) and checks the
// report: build errors and the failure as go test prints them, and the
// skips listed near the end, each reason on one line.
func TestReport(t *testing.T) {
	f, err := os.Open("testdata/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sum, err := Run(f, &b)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if sum.OK() || sum.Failed != 1 || sum.BuildFailed != 1 || sum.Skipped != 2 || sum.Passed != 2 {
		t.Errorf("summary %+v", sum)
	}
	for _, want := range []string{
		"bad/b.go:2:12: undefined: undefined\n",
		"FAIL\tjt/bad [build failed]\n",
		"--- FAIL: TestC (0.00s)\n    a_test.go:5: hello\n    a_test.go:5: bad\n",
		"FAIL\tjt\t0.010s\n",
		"go: warning: a line that is not JSON\n",
		"skipped, and why:\n  SKIPPED: x because y (1 test):\n    jt: TestB/sub\n  no nvim on PATH (1 test):\n    jt: TestA\n",
		"tests: 2 passed, 1 failed, 2 skipped; 1 package did not build\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "=== RUN") || strings.Contains(out, "--- SKIP") || strings.Contains(out, "TestD") {
		t.Errorf("the report shows what go test hides without -v:\n%s", out)
	}
	if !strings.HasSuffix(out, "did not build\n") {
		t.Errorf("the skips and totals are not last:\n%s", out)
	}
}

func TestReasonOfNoMessage(t *testing.T) {
	if r := reason([]string{"=== RUN   TestA\n", "--- SKIP: TestA (0.00s)\n"}); r != "(no reason given)" {
		t.Errorf("reason = %q", r)
	}
	long := strings.Repeat("why ", 100)
	if r := reason([]string{"    x_test.go:1: " + long + "\n"}); len([]rune(r)) != 241 || !strings.HasSuffix(r, "…") {
		t.Errorf("a long reason is not cut: %d runes", len([]rune(r)))
	}
}

func TestNoSkips(t *testing.T) {
	var b strings.Builder
	sum, err := Run(strings.NewReader(`{"Action":"pass","Package":"p","Test":"TestA"}`+"\n"), &b)
	if err != nil || !sum.OK() || !strings.Contains(b.String(), "skipped: none\ntests: 1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("%+v %v\n%s", sum, err, b.String())
	}
}
