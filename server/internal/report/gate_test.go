package report

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/state"
)

// TestGateWordsAreTheVocabularys: a gate line's word for a check result
// is the vocabulary's (docs/vocabulary.md, from the table the CLI's and
// the extension's tests read too).
func TestGateWordsAreTheVocabularys(t *testing.T) {
	data, err := os.ReadFile("../human/testdata/table.json")
	if err != nil {
		t.Fatal(err)
	}
	var tb struct {
		Check []struct{ Status, Gate string }
	}
	if err := json.Unmarshal(data, &tb); err != nil {
		t.Fatal(err)
	}
	if len(tb.Check) == 0 {
		t.Fatal("the table has no check results")
	}
	for _, r := range tb.Check {
		if got := GateWord(r.Status); got != r.Gate {
			t.Errorf("%s reads %q on a gate's line, the vocabulary %q", r.Status, got, r.Gate)
		}
	}
}

// TestAGateWithNothingToSayIsNone: a run that wrote what its contract
// names, with no warning and nothing lacked, has no gate summary; a
// manual step has none either (its instructions are its gate).
func TestAGateWithNothingToSayIsNone(t *testing.T) {
	if g := GateOf("01-x", &state.Record{Status: state.RunDone, Writes: &state.Writes{Declared: 2}}, nil); g != nil {
		t.Errorf("GateOf = %+v, want none", g)
	}
	if g := GateOf("01-x", &state.Record{Status: state.RunManual, Warnings: []state.Warning{{File: "a", Message: "b"}}}, nil); g != nil {
		t.Errorf("GateOf of a manual step = %+v, want none", g)
	}
	g := GateOf("01-x", &state.Record{Status: state.RunDone, Writes: &state.Writes{Declared: 2, Missing: []string{"output/b.md"}}}, nil)
	if lines := g.Lines(nil); len(lines) != 1 || lines[0].Word != "FAIL" || lines[0].Action != state.ActionRun {
		t.Errorf("lines = %+v, want the one FAIL line that asks for a run", lines)
	}
	if got := g.Tally(); got != "1 FAIL" {
		t.Errorf("tally = %q", got)
	}
}
