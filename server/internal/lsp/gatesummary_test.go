package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// gateLine is a line of the gate summary as the server sends it.
type gateLine struct {
	Status, Word, Text string
	Items              []string
}

// TestTheGateSummaryIsTheSameInEveryFace: a stage whose contract icm
// read with a warning, and whose output lacks a heading the next stage
// reads, ends its run with one gate summary, sent the same in the run's
// notice (icm/runFinished), the stage's status row (the Pipeline view)
// and the output file's state lens.
func TestTheGateSummaryIsTheSameInEveryFace(t *testing.T) {
	s := newSession(t)
	appendTo(t, filepath.Join(s.dir, "pipeline/01-scope/CONTEXT.md"), "- min-words many\n")
	research := filepath.Join(s.dir, "pipeline/02-research/CONTEXT.md")
	src, err := os.ReadFile(research)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(research, []byte(strings.Replace(string(src), "../01-scope/output/objectives.md", "../01-scope/output/objectives.md#Objectives", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.ollama.Default(ollamatest.Text("1. Install Ollama.\n2. Run a prompt.\n"))
	before := len(s.Notifications("icm/runFinished"))
	if f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); !f.OK {
		t.Fatalf("run: %+v", f)
	}
	all := s.Notifications("icm/runFinished")
	var end struct{ Gate []gateLine }
	if err := json.Unmarshal(all[len(all)-1], &end); err != nil || len(all) <= before {
		t.Fatal(err)
	}
	want := []gateLine{
		{Status: "warn", Word: "WARN", Text: `pipeline/01-scope/output/objectives.md lacks "Objectives", which 02-research reads (pipeline/02-research/CONTEXT.md:6): add the heading, or 02-research gets the whole file`},
		{Status: "warn", Word: "WARN", Text: "icm read the contract with 1 warning (the stage ran all the same)",
			Items: []string{"pipeline/01-scope/CONTEXT.md:30: min-words needs a positive number, e.g. `min-words 1500`"}},
		// What the output rests on: "Run a prompt." is in no source.
		{Status: "warn", Word: "WARN", Text: "Evidence: 1 of 2 list items supported"},
	}
	if !reflect.DeepEqual(end.Gate, want) {
		t.Fatalf("runFinished's gate = %+v\nwant %+v", end.Gate, want)
	}
	s.AwaitNotification("icm/statusChanged", "the gate summary in the status row", func(raw json.RawMessage) bool {
		var ws struct {
			Stages []struct {
				Name string
				Gate []gateLine
			}
		}
		if json.Unmarshal(raw, &ws) != nil {
			return false
		}
		for _, st := range ws.Stages {
			if st.Name == "01-scope" {
				return reflect.DeepEqual(st.Gate, want)
			}
		}
		return false
	})
	const out = "pipeline/01-scope/output/objectives.md"
	s.Open(out)
	s.Await("the state lens holds the gate summary", func() bool {
		for _, l := range shownLenses(t, s, out) {
			if l.Line == 0 && strings.Contains(l.Title, "3 WARN") &&
				strings.Contains(l.State, "WARN "+want[0].Text) && strings.Contains(l.State, "WARN "+want[1].Text+": "+want[1].Items[0]) {
				return true
			}
		}
		return false
	})

	// A run at work on the stage makes a new summary: while it runs, the
	// row shows none of the last run's lines beside "running".
	s.ollama.Default(ollamatest.Hang())
	sent := len(s.Notifications("icm/statusChanged"))
	finished := len(s.Notifications("icm/runFinished"))
	if _, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}); err != nil {
		t.Fatal(err)
	}
	s.Await("the running stage's row", func() bool {
		for _, raw := range s.Notifications("icm/statusChanged")[sent:] {
			var ws struct {
				Stages []struct {
					Name, Status string
					Gate         []gateLine
				}
			}
			if json.Unmarshal(raw, &ws) != nil {
				continue
			}
			for _, st := range ws.Stages {
				if st.Name == "01-scope" && st.Status == "running" {
					if len(st.Gate) > 0 {
						t.Fatalf("the running stage's row shows the last run's summary: %+v", st.Gate)
					}
					return true
				}
			}
		}
		return false
	})
	if _, err := s.ExecuteCommand("icm.cancel", map[string]any{"workspace": s.dir}); err != nil {
		t.Fatal(err)
	}
	s.Await("the cancelled run ends", func() bool { return len(s.Notifications("icm/runFinished")) > finished })
}

// appendTo adds text at the end of a file.
func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
