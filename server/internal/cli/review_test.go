package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// icm review prints the gate's checklist, the Verify and rubric results
// and the evidence as the vocabulary's gate lines, each with the file and
// line it is about; --json gives the same as data.
func TestReviewPrintsTheGatesLines(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Trip\n\n## Route\nThe coast road runs past the harbour, see https://maps.example.org/coast.\n"))
	dir := wstest.Write(t, rubricWorkspace)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := runAsUser(t, dir, vars, "review", "01-trip")
	if code != 0 {
		t.Fatalf("review: %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"SKIP  check by hand: The route avoids toll roads.",
		`FAIL  pipeline/01-trip/output/trip.md: missing section "Nights" (pipeline/01-trip/references/trip-rubric.md)`,
		"WARN  pipeline/01-trip/output/trip.md:4: cited, never read: https://maps.example.org/coast",
		"WARN  pipeline/01-trip/output/trip.md:4: unsupported (",
		"WARN  pipeline/01-trip/output/trip.md: evidence: 0 of 1 paragraph supported · 1 URL never read",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("review lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = runAsUser(t, dir, vars, "review", "01-trip", "--json")
	if code != 0 {
		t.Fatalf("review --json: %d\n%s%s", code, out, errOut)
	}
	var rv report.Review
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rv.Stage != "01-trip" || len(rv.Evidence) != 1 || rv.Evidence[0].Summary.URLsNeverRead != 1 {
		t.Errorf("review --json: %+v", rv)
	}
	fails := 0
	for _, l := range rv.Lines {
		if l.Status == "fail" {
			fails++
			if l.Part != "rubric" || l.File != "pipeline/01-trip/output/trip.md" {
				t.Errorf("fail line: %+v", l)
			}
		}
	}
	if fails != 1 {
		t.Errorf("%d fail lines: %+v", fails, rv.Lines)
	}
}

// The gate icm run stops at says in one line what the output rests on,
// and where to see each paragraph's.
func TestTheGateSaysWhatTheOutputRestsOn(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("# Trip\n\n## Route\nThe coast road runs past the harbour, see https://maps.example.org/coast.\n\n## Nights\nA tent.\n"))
	dir := wstest.Write(t, rubricWorkspace)
	out, errOut, code := runAsUser(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "run")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "WARN Evidence: 0 of 1 paragraph supported · 1 URL never read\n") {
		t.Errorf("the gate does not say what the output rests on:\n%s", out)
	}
}
