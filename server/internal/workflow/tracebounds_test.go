package workflow_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// traceWorkspace is a one-stage workspace whose history/ holds the given
// traces (run id -> text).
func traceWorkspace(t testing.TB, traces map[string]string) *workspace.Workspace {
	t.Helper()
	dir := wstest.Write(t, "-- CLAUDE.md --\n# Identity\n-- pipeline/01-a/CONTEXT.md --\n# Stage: 01-a\n## Process\nGo.\n## Outputs\n- out.md -> output/\n")
	if err := os.MkdirAll(filepath.Join(dir, workspace.HistoryDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for id, text := range traces {
		if err := os.WriteFile(filepath.Join(dir, workspace.HistoryDir, id+".jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// modelLine is a trace line of one model call.
func modelLine(stage string, call, in, out int) string {
	return fmt.Sprintf(`{"kind":"model","time":"2026-12-01T10:00:%02dZ","stage":%q,"model":{"Call":%d,"Model":"tiny","PromptTokens":%d,"OutputTokens":%d}}`+"\n", call%60, stage, call, in, out)
}

const runEnd = `{"kind":"run-end","time":"2026-12-01T10:01:00Z"}` + "\n"

// TestHistoryListsEveryRunPastALongLine: a trace line longer than the
// line cap (here 17 MB of a tool call's arguments) is skipped with a note
// that says where; the rest of its run is read and every other run is
// listed. Failed before: History failed ("token too long") and `icm
// history` listed no run at all.
func TestHistoryListsEveryRunPastALongLine(t *testing.T) {
	long := `{"kind":"tool","stage":"01-a","tool":{"Call":1,"Name":"x","Args":{"a":"` + strings.Repeat("x", 17<<20) + `"}}}` + "\n"
	ws := traceWorkspace(t, map[string]string{
		"20261201-100000-aaaaaa": modelLine("01-a", 1, 10, 1) + runEnd,
		"20261201-100100-bbbbbb": modelLine("01-a", 1, 20, 2) + long + modelLine("01-a", 2, 30, 3) + runEnd,
		"20261201-100200-cccccc": modelLine("01-a", 1, 40, 4) + runEnd,
	})
	runs, err := workflow.History(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs listed, want 3", len(runs))
	}
	b := runs[1]
	if b.Prompt != 50 || !b.Finished || len(b.Stages) != 1 || b.Stages[0].ModelCalls != 2 {
		t.Errorf("the run with the long line: %d in, finished %v, stages %+v", b.Prompt, b.Finished, b.Stages)
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "line 2") || !strings.Contains(b.Notes[0], "16 MB") {
		t.Errorf("notes %q, want one naming line 2 and the cap", b.Notes)
	}
	one, err := workflow.Run(ws, "20261201-100100")
	if err != nil || one.Prompt != 50 || len(one.Notes) != 1 {
		t.Fatalf("Run: %v %+v", err, one)
	}
}

// TestHistoryHoldsSummariesNotEvents: History keeps each run's summary
// (its stages, totals and tree), never its decoded events; 300,000 tiny
// lines leave a few kilobytes held. Failed before: every event was kept
// decoded (about 1 KB for a 13-byte line), 300 MB for this trace.
func TestHistoryHoldsSummariesNotEvents(t *testing.T) {
	var b strings.Builder
	b.WriteString(modelLine("01-a", 1, 10, 1))
	for b.Len() < 300000*13 {
		b.WriteString(`{"kind":"x"}` + "\n")
	}
	b.WriteString(runEnd)
	ws := traceWorkspace(t, map[string]string{"20261201-100000-aaaaaa": b.String()})
	b.Reset()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runs, err := workflow.History(ws)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(runs) != 1 || len(runs[0].Events) != 0 || runs[0].Prompt != 10 || !runs[0].Finished {
		t.Fatalf("runs %+v (%d events held)", runs, len(runs[0].Events))
	}
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 8<<20 {
		t.Errorf("History holds %d MB for one run", held>>20)
	}
	runtime.KeepAlive(runs)
}

// TestRunTreeIsCapped: a run's tree holds at most a thousand lines; the
// stage says how many calls it does not show. History and Run give the
// same tree. Failed before: 5,000 calls made 5,000 nodes (and a trace of
// millions of one-line calls, millions), each one sent to the editor.
func TestRunTreeIsCapped(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		b.WriteString(modelLine("01-a", i, 1, 1))
	}
	b.WriteString(runEnd)
	ws := traceWorkspace(t, map[string]string{"20261201-100000-aaaaaa": b.String()})
	runs, err := workflow.History(ws)
	if err != nil || len(runs) != 1 {
		t.Fatal(err, len(runs))
	}
	one, err := workflow.Run(ws, report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*report.RunSummary{"History": runs[0], "Run": one} {
		tree := r.Tree
		if len(tree) != 1 || len(tree[0].Children) > 1000 || len(tree[0].Children) < 900 {
			t.Fatalf("%s: tree of %d stages, %d calls under the first", name, len(tree), len(tree[0].Children))
		}
		if n := len(tree[0].Children); !strings.Contains(tree[0].Text, fmt.Sprintf("%d more calls not shown", 5000-n)) {
			t.Errorf("%s: the stage's line %q does not say what it leaves out", name, tree[0].Text)
		}
		if r.Stages[0].ModelCalls != 5000 || r.Prompt != 5000 {
			t.Errorf("%s: the totals count %d calls, %d tokens", name, r.Stages[0].ModelCalls, r.Prompt)
		}
	}
}

// TestHistoryTotalsSaturate: token counts a trace claims are summed
// without overflowing. Failed before: two calls of 9e18 tokens summed to
// a negative total.
func TestHistoryTotalsSaturate(t *testing.T) {
	ws := traceWorkspace(t, map[string]string{"20261201-100000-aaaaaa": modelLine("01-a", 1, 9e18, 9e18) + modelLine("01-a", 2, 9e18, 9e18) + runEnd})
	runs, err := workflow.History(ws)
	if err != nil {
		t.Fatal(err)
	}
	if r := runs[0]; r.Prompt != math.MaxInt || r.Output != math.MaxInt || r.Stages[0].Prompt != math.MaxInt {
		t.Errorf("totals %d in, %d out, stage %d", r.Prompt, r.Output, r.Stages[0].Prompt)
	}
}

// TestFindExchangeIsLinear: rebuilding a call's request from a trace of
// 20,000 calls of one loop, each adding a message, allocates a handful
// of times, not once per call. Failed before: each call's request was a
// new copy of the whole conversation (quadratic: 20,000 copies of up to
// 20,000 messages).
func TestFindExchangeIsLinear(t *testing.T) {
	var b strings.Builder
	const calls = 20000
	for i := 1; i <= calls; i++ {
		fmt.Fprintf(&b, `{"kind":"model","stage":"01-a","model":{"Call":%d,"Model":"tiny","SentFrom":%d,"Sent":[{"role":"user","content":"m%d"}]}}`+"\n", i, i-1, i)
	}
	ws := traceWorkspace(t, map[string]string{"20261201-100000-aaaaaa": b.String()})
	r, err := workflow.Run(ws, report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := workflow.FindExchange(r, "01-a", 0, calls)
	if err != nil || len(ex.Request) != calls || ex.Request[calls-1].Content != fmt.Sprintf("m%d", calls) {
		t.Fatalf("%v, %d messages", err, len(ex.Request))
	}
	allocs := testing.AllocsPerRun(3, func() { _, _ = workflow.FindExchange(r, "01-a", 0, calls) })
	if allocs > 200 {
		t.Errorf("%.0f allocations to rebuild one request", allocs)
	}
}
