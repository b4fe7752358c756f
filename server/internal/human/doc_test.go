package human

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tables of docs/vocabulary.md from testdata/table.json")

// vocabularyDoc is the document whose tables are the shared table's.
const vocabularyDoc = "../../../docs/vocabulary.md"

// The generated part of docs/vocabulary.md lies between these lines.
const (
	docBegin = "<!-- The tables below are testdata/table.json of server/internal/human, written out by its TestVocabularyDoc: edit the JSON, then run `go test ./server/internal/human -run TestVocabularyDoc -update`. -->"
	docEnd   = "<!-- End of the generated tables. -->"
)

// TestVocabularyDoc: docs/vocabulary.md shows the shared table as it is,
// so the document a person reads and the answers both sides' tests check
// are one. With -update it is rewritten.
func TestVocabularyDoc(t *testing.T) {
	data, err := os.ReadFile("testdata/table.json")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := renderTables(data)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(vocabularyDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), docBegin)
	_, after, ok2 := strings.Cut(rest, docEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the lines that bound its generated tables:\n%s\n%s", vocabularyDoc, docBegin, docEnd)
	}
	want := before + docBegin + "\n\n" + tables + "\n" + docEnd + after
	if *update {
		if err := os.WriteFile(vocabularyDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(doc) != want {
		t.Errorf("%s does not show testdata/table.json as it is: rerun with -update and review the diff", vocabularyDoc)
	}
}

// A section of the table: its title, what writes it, its columns (JSON
// fields, in order) and their headings.
var sections = []struct {
	key, title, writer string
	fields, headings   []string
}{
	{"duration", "Durations", "`human.Duration`; `formatDuration`", []string{"ms", "want"}, []string{"milliseconds", "written"}},
	{"count", "Exact counts", "`human.Count`; `formatCount`", []string{"n", "want"}, []string{"n", "written"}},
	{"plural", "A count and its noun", "`human.Plural`; `plural`", []string{"n", "noun", "want"}, []string{"n", "noun", "written"}},
	{"tokens", "Exact token figures", "`human.Tokens`", []string{"n", "want"}, []string{"tokens", "written"}},
	{"estimate", "Estimated token figures", "`human.Estimate` (`human.Approx` without the unit)", []string{"n", "want"}, []string{"tokens", "written"}},
	{"inout", "Tokens a model read and wrote", "`human.InOut`", []string{"in", "out", "want"}, []string{"in", "out", "written"}},
	{"size", "Sizes", "`human.Size`", []string{"n", "want"}, []string{"bytes", "written"}},
	{"rate", "How fast a model wrote", "`human.Rate`", []string{"n", "ms", "want"}, []string{"tokens", "milliseconds", "written"}},
	{"prefill", "What a call's prompt cost before its answer", "`human.Prefill`", []string{"prompt", "reused", "measured", "want"}, []string{"prompt tokens", "reused", "reported by the server", "written"}},
	{"prefillleast", "What a stage's prompts cost against the least they could", "`human.PrefillLeast`", []string{"computed", "least", "want"}, []string{"computed", "the least", "written"}},
	{"failed", "Failures among many", "`human.Failed`", []string{"n", "of", "noun", "want"}, []string{"failed", "of", "noun", "written"}},
	{"time", "Times (UTC here; local where shown)", "`human.Time`, `human.Moment`; `formatTime`, `formatMoment`", []string{"t", "now", "want", "moment"}, []string{"when", "now", "to the minute", "to the second"}},
	{"outcome", "How a run ended", "`session.Run*` (the trace's status); the Runs view, `icm/runFinished`'s `outcome`, its progress's end, `icm history`", []string{"status", "means"}, []string{"word", "means"}},
	{"state", "Stage states", "`state.FaceOf`; `icm.status`'s `states` (the Pipeline view's legend)", []string{"status", "label", "means"}, []string{"status", "words", "means"}},
	{"check", "Check results", "`icm doctor` (`session.Diag*`, marks in `cli/doctor.go`), the editor's Doctor (`doctor.ts`), the gate summary's lines (`report.Gate`) and `icm review`'s (`report.GateWord`)", []string{"status", "mark", "icon", "gate", "means"}, []string{"status", "mark", "editor's icon", "gate line", "means"}},
	{"test", "Test job outcomes", "`icm test` (`cli/testrender.go`) and the Test Explorer's output (`testResults.ts`)", []string{"status", "mark", "means"}, []string{"status", "mark", "means"}},
}

// renderTables writes every section of the table as Markdown.
func renderTables(data []byte) (string, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range sections {
		var rows []map[string]any
		if err := json.Unmarshal(all[s.key], &rows); err != nil || len(rows) == 0 {
			return "", fmt.Errorf("the table has no %q section (%v)", s.key, err)
		}
		fmt.Fprintf(&b, "### %s\n\nWritten by %s.\n\n| %s |\n|%s\n", s.title, s.writer, strings.Join(s.headings, " | "), strings.Repeat(" --- |", len(s.headings)))
		for _, r := range rows {
			cells := make([]string, len(s.fields))
			for i, f := range s.fields {
				cells[i] = cellOf(f, r[f])
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		}
		b.WriteString("\n")
	}
	if len(all) != len(sections)+1 { // and "about"
		return "", fmt.Errorf("the table has %d sections, the document %d: add the new one to sections", len(all)-1, len(sections))
	}
	return b.String(), nil
}

// cellOf is a value as a table cell: what a field means as words, any
// other string in code quotes (so its spaces show), a number as JSON
// writes it.
func cellOf(field string, v any) string {
	switch x := v.(type) {
	case string:
		if field == "means" {
			return strings.ReplaceAll(x, "|", "\\|")
		}
		if x == "" {
			return "(nothing)"
		}
		return "`" + x + "`"
	case nil:
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}
