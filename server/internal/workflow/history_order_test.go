package workflow_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestRepeatedFailuresKeepTheirOwnStart: a stage whose runs keep failing
// before they start (no model server) records the latest attempt's start
// and end, not the first attempt's start beside the latest's end (which
// read as one attempt that lasted from the first to the last).
func TestRepeatedFailuresKeepTheirOwnStart(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	ws := h.ws()
	first := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	later := first.Add(2 * time.Hour)
	for i, now := range []time.Time{first, later} {
		if err := workflow.NoteFailure(ws, "01-plan", fmt.Sprintf("run-%d", i), errors.New("no model server at http://127.0.0.1:1"), now); err != nil {
			t.Fatal(err)
		}
	}
	st := mustStage(t, h, "01-plan")
	rec, err := state.ReadRecord(ws.Disk, st.Dir)
	if err != nil || rec == nil {
		t.Fatalf("record: %v", err)
	}
	if !rec.Started.Equal(later) || !rec.Finished.Equal(later) || rec.RunID != "run-1" {
		t.Errorf("after two failed attempts the record says started %s, finished %s, run %s; want both %s, run-1", rec.Started, rec.Finished, rec.RunID, later)
	}
}

// TestHistoryOrdersRunsOfOneSecond: two runs started in the same second
// are listed in the order they started, and the later one is "latest",
// whatever their ids' random tails say. Before, they were ordered by id,
// so the tail decided.
func TestHistoryOrdersRunsOfOneSecond(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	second := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	write := func(id string, at time.Duration) {
		var b strings.Builder
		for _, ev := range []report.Event{
			{Kind: report.EventRunStart, Time: second.Add(at)},
			{Kind: report.EventRunEnd, Time: second.Add(at + 10*time.Millisecond)},
		} {
			line, _ := json.Marshal(ev)
			b.Write(append(line, '\n'))
		}
		if err := os.MkdirAll(filepath.Join(h.dir, "history"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.dir, "history", id+".jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("20261201-100000-ffffff", 100*time.Millisecond) // first, though its id sorts last
	write("20261201-100000-000000", 900*time.Millisecond)
	runs, err := workflow.History(h.ws())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "20261201-100000-ffffff" || runs[1].ID != "20261201-100000-000000" {
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
		t.Errorf("history order %v, want the run that started first first", ids)
	}
	latest, err := workflow.Run(h.ws(), report.LatestRun)
	if err != nil || latest.ID != "20261201-100000-000000" {
		t.Errorf("latest = %v (%v), want the run that started last", latest, err)
	}
}
