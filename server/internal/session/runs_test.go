package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// writeTrace writes events as a run's trace in ws's history/.
func writeTrace(t *testing.T, root string, events []report.Event) {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		line, _ := json.Marshal(ev)
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Join(root, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "history", workflow.NewRunID(time.Now())+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestACallWithoutItsItemIsAFault: a model call of a For each stage asked
// for without its item is an invalid request, and the error is the fault
// itself, as every error the session returns is, so a front end renders
// it like any other. Before, it was a type of the session's own that the
// CLI had to know.
func TestACallWithoutItsItemIsAFault(t *testing.T) {
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	s := Open(ws, Options{})
	defer s.Close()
	now := time.Now()
	model := func(item int) report.Event {
		return report.Event{Kind: report.EventModel, Time: now, Stage: "01-a", Item: "one", Index: item, Count: 2, Model: &report.ModelEvent{Call: 1}}
	}
	writeTrace(t, ws.Root, []report.Event{
		{Kind: report.EventRunStart, Time: now}, {Kind: report.EventStageStart, Stage: "01-a", Time: now},
		model(1), model(2),
		{Kind: report.EventStageEnd, Stage: "01-a", Status: "done", Time: now}, {Kind: report.EventRunEnd, Time: now},
	})
	_, err := s.History().Exchange(report.LatestRun, "01-a", 0, 1)
	fe, ok := err.(*fault.Error)
	if !ok {
		t.Fatalf("Exchange without the item returned %T (%v), not a *fault.Error", err, err)
	}
	if fe.Kind != fault.KindInvalidRequest || fe.Stage != "01-a" || !strings.Contains(fe.Msg, "(1 to 2)") || fe.Hint == "" {
		t.Errorf("the fault: %+v", fe)
	}
	if ex, err := s.History().Exchange(report.LatestRun, "01-a", 2, 1); err != nil || ex.Index != 2 {
		t.Errorf("with the item: %v %+v", err, ex)
	}
}

// TestAnUnfinishedRunIsRunningOrStopped: a trace without its end is the
// run going on now while a run holds the workspace, and a stopped (killed)
// run once none does. Before, both read as finished runs of "0 ms · 0
// tokens" that failed.
func TestAnUnfinishedRunIsRunningOrStopped(t *testing.T) {
	ws := openWS(t, strings.Replace(threeStages, "%s", "", 1))
	s := Open(ws, Options{})
	defer s.Close()
	lock, err := state.Acquire(ws.Disk, "icm run")
	if err != nil {
		t.Fatal(err)
	}
	writeTrace(t, ws.Root, []report.Event{
		{Kind: report.EventRunStart, Time: time.Now()},
		{Kind: report.EventStageStart, Stage: "01-a", Time: time.Now()},
	})
	runs, err := s.History().Runs()
	if err != nil || len(runs) != 1 || runs[0].Status != report.RunRunning {
		t.Fatalf("while the lock is held: %v %+v", err, runs)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	runs, _ = s.History().Runs()
	if runs[0].Status != report.RunStopped {
		t.Errorf("with no run going the unfinished run reads %q, want stopped", runs[0].Status)
	}
}
