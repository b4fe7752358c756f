package cli

import (
	"encoding/json"
	"os"
	"testing"
)

// TestMarksAreTheVocabularys: a check result's and a test job's marks at
// the terminal are the vocabulary's (docs/vocabulary.md, from the table
// the extension's tests read too).
func TestMarksAreTheVocabularys(t *testing.T) {
	data, err := os.ReadFile("../human/testdata/table.json")
	if err != nil {
		t.Fatal(err)
	}
	var tb struct {
		Check, Test []struct{ Status, Mark string }
	}
	if err := json.Unmarshal(data, &tb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what  string
		rows  []struct{ Status, Mark string }
		marks map[string]string
	}{{"check", tb.Check, marks}, {"test", tb.Test, testMarks}} {
		if len(c.rows) == 0 || len(c.rows) != len(c.marks) {
			t.Errorf("%s: the table has %d results, the CLI %d", c.what, len(c.rows), len(c.marks))
		}
		for _, r := range c.rows {
			if c.marks[r.Status] != r.Mark {
				t.Errorf("%s %s reads %q at the terminal, the vocabulary %q", c.what, r.Status, c.marks[r.Status], r.Mark)
			}
		}
	}
}
