package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workflow"
)

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
	var b strings.Builder
	for _, ev := range []report.Event{
		{Kind: report.EventRunStart, Time: time.Now()},
		{Kind: report.EventStageStart, Stage: "01-a", Time: time.Now()},
	} {
		line, _ := json.Marshal(ev)
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Join(ws.Root, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Root, "history", workflow.NewRunID(time.Now())+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 1 || runs[0].Status != report.RunRunning {
		t.Fatalf("while the lock is held: %v %+v", err, runs)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	runs, _ = s.Runs()
	if runs[0].Status != report.RunStopped {
		t.Errorf("with no run going the unfinished run reads %q, want stopped", runs[0].Status)
	}
}
