package lsp_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// runningStatus is an icm/statusChanged's run and 04-draft's row.
type runningStatus struct {
	Running *struct {
		Stage       string
		Done, Items int
		Count, Text string
	}
	Stages []stageFace
}

// TestEveryCounterReadsOneRunningRecord: issue 34 (10). The progress
// said "2 of 4 items done · running [4/4]" while the row and status bar
// said 2 of 4; a run of one item again said "0 of 5 items done" with 4
// kept. Every word about a run going is now the one running record's
// (snapshot.Running.Words): each status's running text is its stage's
// face detail and starts with its count; the progress's item reports are
// those words (no "[n/m]"); a status is sent when an item starts as when
// it ends; and once the run ends its last status has no run and no stage
// running.
func TestEveryCounterReadsOneRunningRecord(t *testing.T) {
	s := newSession(t)
	for _, m := range []string{"One", "Two", "Three", "Four"} {
		s.ollama.On(ollamatest.LastUserContains("## " + m)).Reply(ollamatest.Text("## " + m + "\n\nAbout " + strings.ToLower(m) + "."))
	}
	upstreamApproved(t, s, "# Outline\n\n## One\n- a\n\n## Two\n- b\n\n## Three\n- c\n\n## Four\n- d\n")
	before := len(s.AllNotifications())
	f := runAndWait(t, s, "icm.runStage", map[string]any{"workspace": s.dir, "stage": "04-draft", "force": true})
	if !f.OK {
		t.Fatalf("run: %+v", f)
	}
	texts, reports, last := runWords(t, s, f.RunID, before)
	words := regexp.MustCompile(`^\d of 4 items done( · running (item \d: \w+|items \d(, \d)* and \d))?$`)
	running := false
	for _, r := range reports {
		if !words.MatchString(r) {
			t.Errorf("the progress said %q", r)
		}
		running = running || strings.Contains(r, "running item")
	}
	if len(reports) == 0 || reports[len(reports)-1] != "4 of 4 items done" || !running {
		t.Errorf("the progress's item reports: %q", reports)
	}
	if len(texts) == 0 {
		t.Error("no status told the run's items")
	}
	for text := range texts {
		if !words.MatchString(text) {
			t.Errorf("a status said %q", text)
		}
	}
	if last.Running != nil || rowOf(last, "04-draft").Status == "running" {
		t.Errorf("after the run its last status still says it runs: %+v", last)
	}

	// One item again: it says which, and that the others are kept.
	before = len(s.AllNotifications())
	f = runAndWait(t, s, "icm.runItem", map[string]any{"workspace": s.dir, "stage": "04-draft", "item": 3, "note": "again"})
	if !f.OK {
		t.Fatalf("item run: %+v", f)
	}
	texts, reports, last = runWords(t, s, f.RunID, before)
	const again = "item 3 of 4 again, the other 3 kept"
	if len(reports) == 0 {
		t.Error("the item run reported no item")
	}
	for _, r := range reports {
		if r != again {
			t.Errorf("the item run's progress said %q, not %q", r, again)
		}
	}
	for text := range texts {
		if text != again && text != "item 3 again" {
			t.Errorf("a status of the item run said %q", text)
		}
	}
	if last.Running != nil {
		t.Errorf("after the item run its last status still says it runs: %+v", last)
	}
}

// runWords reads the notifications since before of the run runID: the
// running texts its statuses carried (checking each against its stage's
// face), its progress's item reports, and the last status sent.
func runWords(t *testing.T, s *session, runID string, before int) (texts map[string]bool, reports []string, last runningStatus) {
	t.Helper()
	s.Await("the progress ends", func() bool {
		v := progressValues(s, "icm-run-"+runID)
		return len(v) > 0 && v[len(v)-1]["kind"] == "end"
	})
	// The status after the run is sent once its work is done, after the
	// notice that it finished: wait for the one without a run. (A status
	// before the run began has none either.)
	s.Await("the status after the run", func() bool {
		finished := false
		for _, n := range s.AllNotifications()[before:] {
			var st runningStatus
			switch {
			case n.Method == "icm/runFinished" && strings.Contains(string(n.Params), runID):
				finished = true
			case finished && n.Method == "icm/statusChanged" && json.Unmarshal(n.Params, &st) == nil && st.Running == nil:
				return true
			}
		}
		return false
	})
	texts = map[string]bool{}
	for _, n := range s.AllNotifications()[before:] {
		switch n.Method {
		case "icm/statusChanged":
			var st runningStatus
			if err := json.Unmarshal(n.Params, &st); err != nil {
				t.Fatal(err)
			}
			last = st
			if r := st.Running; r != nil && r.Text != "" {
				texts[r.Text] = true
				if row := rowOf(st, r.Stage); row.Face.Detail != r.Text || !strings.HasPrefix(r.Text, r.Count) || r.Count == "" {
					t.Errorf("the run's words %q (count %q) and its row's %+v differ", r.Text, r.Count, row)
				}
			}
		case "$/progress":
			var p struct {
				Token string
				Value struct{ Kind, Message string }
			}
			if json.Unmarshal(n.Params, &p) != nil || p.Token != "icm-run-"+runID || p.Value.Kind != "report" {
				continue
			}
			if regexp.MustCompile(`\[\d+/\d+\]`).MatchString(p.Value.Message) {
				t.Errorf("the progress counts as [n/m]: %q", p.Value.Message)
			}
			if itemReport.MatchString(p.Value.Message) {
				reports = append(reports, p.Value.Message)
			}
		}
	}
	return texts, reports, last
}

// itemReport matches the progress reports of a For each item's start
// and end.
var itemReport = regexp.MustCompile(`items done|again, the other`)

func rowOf(st runningStatus, stage string) stageFace {
	for _, r := range st.Stages {
		if r.Name == stage {
			return r
		}
	}
	return stageFace{}
}
