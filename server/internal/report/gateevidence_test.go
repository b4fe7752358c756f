package report

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
)

// The gate summary says what the outputs rest on in one line, as the run
// record keeps it: a warning when a unit rests on nothing, a pass when
// every one is supported; it is the summary of a stage that had nothing
// else to say, too.
func TestTheGateSaysWhatTheOutputsRestOn(t *testing.T) {
	rec := &state.Record{Status: state.RunDone, Writes: &state.Writes{Declared: 1}, Evidence: "2 of 3 paragraphs supported · 1 URL never read"}
	g := GateOf("01-x", rec, nil)
	lines := g.Lines(nil)
	if len(lines) != 1 || lines[0].Word != "WARN" || lines[0].Text != "Evidence: 2 of 3 paragraphs supported · 1 URL never read" || g.Tally() != "1 WARN" {
		t.Errorf("lines = %+v, tally %q", lines, g.Tally())
	}
	rec.Evidence, rec.EvidenceClean = "3 of 3 paragraphs supported", true
	clean := GateOf("01-x", rec, nil)
	if lines := clean.Lines(nil); len(lines) != 1 || lines[0].Word != "PASS" || clean.Tally() != "" {
		t.Errorf("clean lines = %+v, tally %q", lines, clean.Tally())
	}
}
