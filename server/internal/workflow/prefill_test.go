package workflow_test

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// TestRunRecordsWhatEachCallReused: a For each stage run against a
// server whose model files are on this machine records, per call, the
// prompt tokens the server reused (icm's prediction under the slots
// config.toml states) and the call's own tokens; the run's tree says
// "N new, M reused (predicted)" on each call and sums the stage against
// the least it could have computed.
func TestRunRecordsWhatEachCallReused(t *testing.T) {
	files := t.TempDir()
	if err := realollama.LayOut(files, "tiny", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{files}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	// The tiny model reads one token per byte: so does the scripted server.
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", Digest: f.Digest, ContextLength: 8192}},
		CountTokens: func(s string) int { return len(s) }})
	scriptSmall(srv, 3)
	dir := writeParts(t, "[model]\nname = \"tiny\"\nslots = 2\n[workflow]\nparallel = 1", 3)
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()),
		llm.WithModelFiles(ollamamodel.NewCache([]string{files})))
	if err != nil {
		t.Fatal(err)
	}
	sum := runOnce(t, dir, client)
	run, err := workflow.Run(openWS(t, dir), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var calls []*report.ModelEvent
	for _, ev := range run.Events {
		if ev.Kind == report.EventModel && ev.Model != nil {
			calls = append(calls, ev.Model)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	least := 0
	for i, m := range calls {
		if m.ReuseBasis != "2 slots (config.toml)" || m.ReuseMeasured || m.Own <= 0 {
			t.Errorf("call %d: reused %d, own %d, basis %q", i+1, m.Reused, m.Own, m.ReuseBasis)
		}
		if i == 0 && m.Reused != 0 {
			t.Errorf("the first call reused %d tokens of an empty server", m.Reused)
		}
		// One at a time: each later call reuses all it shares with the
		// one before (the parts differ in their last lines only).
		if i > 0 && (m.Reused == 0 || m.Reused+m.Own != m.PromptEstimate) {
			t.Errorf("call %d: reused %d + own %d, want its %d prompt tokens", i+1, m.Reused, m.Own, m.PromptEstimate)
		}
		least += m.Own
	}
	st := run.Stages[0]
	if p := st.Prefill; p == nil || p.Calls != 3 || p.Least != least {
		t.Fatalf("stage prefill %+v, want 3 calls, least %d", st.Prefill, least)
	}
	stageLine := run.Tree[0].Text
	if !strings.Contains(stageLine, "prefill: ") || !strings.Contains(stageLine, "the least") {
		t.Errorf("stage line %q says nothing of prefill", stageLine)
	}
	var callLines []string
	var walk func([]*report.RunNode)
	walk = func(ns []*report.RunNode) {
		for _, n := range ns {
			if n.Kind == report.NodeModel {
				callLines = append(callLines, n.Text)
			}
			walk(n.Children)
		}
	}
	walk(run.Tree)
	if len(callLines) != 3 {
		t.Fatalf("tree: %d call lines", len(callLines))
	}
	for _, l := range callLines {
		if !strings.Contains(l, " reused (predicted) in ") {
			t.Errorf("call line %q does not say what was reused", l)
		}
	}
}
