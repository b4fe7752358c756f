package workflow_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// writeTrace writes a run's trace by hand: the events a run of that
// shape leaves.
func writeTrace(t *testing.T, dir, id string, events []report.Event) {
	t.Helper()
	var b strings.Builder
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, ev := range events {
		ev.Time = at.Add(time.Duration(i) * 100 * time.Millisecond)
		line, _ := json.Marshal(ev)
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Join(dir, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history", id+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestARunSaysHowItEnded: cancelled, failed after work, refused before
// any (the server refused the model), done and unfinished are told
// apart. Before, a cancelled run and a refused attempt both read as a
// failed run.
func TestARunSaysHowItEnded(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	start := report.Event{Kind: report.EventRunStart}
	stageStart := report.Event{Kind: report.EventStageStart, Stage: "01-plan"}
	answered := report.Event{Kind: report.EventModel, Stage: "01-plan", Model: &report.ModelEvent{Call: 1, PromptTokens: 900, OutputTokens: 50}}
	refusedCall := report.Event{Kind: report.EventModel, Stage: "01-plan", Model: &report.ModelEvent{Call: 1, Err: `model "x" not found`}}
	end := func(status string) report.Event {
		return report.Event{Kind: report.EventStageEnd, Stage: "01-plan", Status: status, Err: map[string]string{"done": ""}[status]}
	}
	runEnd := report.Event{Kind: report.EventRunEnd}
	cases := map[string][]report.Event{
		report.RunDone:       {start, stageStart, answered, end("done"), runEnd},
		report.RunCancelled:  {start, stageStart, answered, end("cancelled"), runEnd},
		report.RunFailed:     {start, stageStart, answered, end("failed"), runEnd},
		report.RunRefused:    {start, stageStart, refusedCall, end("failed"), runEnd},
		report.RunUnfinished: {start, stageStart, answered},
	}
	for status, events := range cases {
		writeTrace(t, h.dir, "20261201-100000-"+status, events)
	}
	runs, err := workflow.History(h.ws())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(cases) {
		t.Fatalf("%d runs, want %d", len(runs), len(cases))
	}
	for _, r := range runs {
		if want := strings.TrimPrefix(r.ID, "20261201-100000-"); r.Status != want {
			t.Errorf("run %s reads %q", r.ID, r.Status)
		}
	}
}

// TestRefusalsLeaveNoTrace: a run the engine refuses before any stage
// starts (an output edited since it was approved) leaves nothing in
// history/; one the model server refuses (a model it lacks) is listed as
// refused, not failed. Before, both were listed as failed runs of a few
// milliseconds.
func TestRefusalsLeaveNoTrace(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 2)
	h.mustRun(workflow.Options{})
	count := func() int {
		runs, err := workflow.History(h.ws())
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d runs after the first, want 1", n)
	}
	out := filepath.Join(h.dir, "pipeline/01-plan/output/plan.md")
	if err := os.WriteFile(out, []byte(h.read("pipeline/01-plan/output/plan.md")+"\nA person's line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.run(workflow.Options{Stage: "01-plan"}); err == nil {
		t.Fatal("a run over an unapproved edit was not refused")
	}
	if n := count(); n != 1 {
		t.Errorf("%d runs after a refusal, want still 1", n)
	}
	if _, err := h.run(workflow.Options{Stage: "01-plan", Force: true, Model: "qwen3.5:9"}); err == nil {
		t.Fatal("a run with a model the server lacks succeeded")
	}
	latest, err := workflow.Run(h.ws(), report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Status != report.RunRefused {
		t.Errorf("the run the server refused reads %q, want refused", latest.Status)
	}
}

// TestARunTreeListsItemsInItemOrder: items that started or finished out
// of order are listed as the source orders them. Before, they came in
// the order of their first events ([2/3], [1/3], [3/3]).
func TestARunTreeListsItemsInItemOrder(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	item := func(kind string, i int) report.Event {
		return report.Event{Kind: kind, Stage: "02-write", Item: "Part", Index: i, Count: 3}
	}
	writeTrace(t, h.dir, "20261201-100000-aaaaaa", []report.Event{
		{Kind: report.EventRunStart}, {Kind: report.EventStageStart, Stage: "02-write"},
		item(report.EventItemEnd, 2), item(report.EventItemStart, 1), item(report.EventItemStart, 3),
		item(report.EventItemEnd, 3), item(report.EventItemEnd, 1),
		{Kind: report.EventStageEnd, Stage: "02-write", Status: "done"}, {Kind: report.EventRunEnd},
	})
	r, err := workflow.Run(h.ws(), report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	tree := r.Tree
	var got []int
	for _, n := range tree[0].Children {
		got = append(got, n.Index)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("items in the order %v, want [1 2 3]", got)
	}
}

// TestAnItemRerunIsLabelled: a run of one item again, with a note, says
// so in its tree. Before, it read as a run of the whole stage.
func TestAnItemRerunIsLabelled(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	scriptSmall(h.srv, 3)
	h.mustRun(workflow.Options{})
	h.approve("01-plan")
	h.mustRun(workflow.Options{})
	h.mustRun(workflow.Options{Stage: "02-write", Item: 2, Note: "shorter, please"})
	r, err := workflow.Run(h.ws(), report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	if r.Item != 2 || r.ItemStage != "02-write" || r.Note != "shorter, please" {
		t.Fatalf("run: item %d of %q, note %q", r.Item, r.ItemStage, r.Note)
	}
	n := r.Tree[0]
	if n.Rerun != 2 || n.Note != "shorter, please" || !strings.Contains(n.Text, `02-write item 2 again (note: "shorter, please")`) {
		t.Errorf("stage node %+v", n)
	}
}

// TestAToolCallOpensLikeAModelCall: a tool call of a run gives back its
// arguments, the result the model was given and its error, as a model
// call gives its request and reply. Before, a tool call could not be
// opened at all.
func TestAToolCallOpensLikeAModelCall(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	tool := func(call int, name string, failed string) report.Event {
		return report.Event{Kind: report.EventTool, Stage: "01-plan", Tool: &report.ToolEvent{Call: call, Name: name,
			Args: map[string]any{"query": "ollama"}, IsError: failed != "", Err: failed}}
	}
	model := func(call int, sent ...report.Message) report.Event {
		return report.Event{Kind: report.EventModel, Stage: "01-plan", Model: &report.ModelEvent{Call: call, Sent: sent}}
	}
	writeTrace(t, h.dir, "20261201-100000-bbbbbb", []report.Event{
		{Kind: report.EventRunStart}, {Kind: report.EventStageStart, Stage: "01-plan"},
		model(1, report.Message{Role: "user", Content: "go"}),
		tool(1, "search", ""), tool(2, "fetch", "timed out after 30 s"),
		model(2, report.Message{Role: llm.RoleTool, ToolName: "search", Content: "three results"}, report.Message{Role: llm.RoleTool, ToolName: "fetch", Content: "The tool failed: timed out after 30 s"}),
		tool(3, "search", ""),
		{Kind: report.EventStageEnd, Stage: "01-plan", Status: "done"}, {Kind: report.EventRunEnd},
	})
	r, err := workflow.Run(h.ws(), report.LatestRun)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		call      int
		result    string
		hasResult bool
		err       string
	}{
		{1, "three results", true, ""},
		{2, "The tool failed: timed out after 30 s", true, "timed out after 30 s"},
		{3, "", false, ""},
	} {
		ex, err := workflow.FindToolCall(r, "01-plan", 0, c.call)
		if err != nil {
			t.Fatalf("call %d: %v", c.call, err)
		}
		if ex.Result != c.result || ex.HasResult != c.hasResult || ex.Call.Err != c.err || ex.Call.Args["query"] != "ollama" {
			t.Errorf("call %d: result %q (%v), error %q, args %v", c.call, ex.Result, ex.HasResult, ex.Call.Err, ex.Call.Args)
		}
	}
	if _, err := workflow.FindToolCall(r, "01-plan", 0, 9); err == nil {
		t.Error("a call the run did not make was found")
	}
}
