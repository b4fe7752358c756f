package session

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// firstCalls are a stage's first calls as its run makes them: one, or
// one per For each item.
func firstCalls(t *testing.T, ws *workspace.Workspace, st *workspace.Stage, rep *check.Report, call promptcount.Call) []llm.ChatRequest {
	t.Helper()
	k := rep.Stage(st.Name).Contract
	opts := assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy}
	if k.ForEach == nil {
		cx, err := assemble.Stage(ws, st, k, opts)
		if err != nil {
			t.Fatal(err)
		}
		return []llm.ChatRequest{promptcount.Request(cx, call)}
	}
	items, _, err := assemble.Items(ws, st, k)
	if err != nil {
		t.Fatal(err)
	}
	var out []llm.ChatRequest
	for i := range items {
		o := opts
		assemble.WithItem(&o, items, i+1)
		cx, err := assemble.Stage(ws, st, k, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, promptcount.Request(cx, call))
	}
	return out
}

// checkCalibratedFromHistory runs every model stage of course-research
// and tech-article three times against the server at url (the model's
// files absent here, so every count before a call is an estimate), then
// counts each stage: the count is calibrated from the three runs in
// history/ and within limit of the server's count of the same first
// calls, as the stage is and with a paragraph added to its Process (a
// person's edit after the runs).
func checkCalibratedFromHistory(t *testing.T, url, model string, limit float64) {
	noFiles := t.TempDir()
	getenv := func(k string) string {
		if k == "OLLAMA_MODELS" {
			return noFiles
		}
		return os.Getenv(k)
	}
	ctx := context.Background()
	worst := 0.0
	for _, name := range []string{"course-research", "tech-article"} {
		dir, restore := wstest.CopyWithSamples(t, name)
		trusttest.Grant(t, dir)
		open := func() (*Session, *workspace.Workspace, *check.Report) {
			ws, err := workspace.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := Open(ws, Options{Settings: Settings{Model: model, Host: url}, Getenv: getenv, Self: icmBin, Counting: NewCounting(getenv)})
			t.Cleanup(s.Close)
			return s, ws, check.Run(ws, check.Options{Servers: s.box.Names()})
		}
		s, ws, rep := open()
		var stages []*workspace.Stage
		for _, st := range ws.Stages {
			if k := rep.Stage(st.Name).Contract; k != nil && k.Script == nil {
				stages = append(stages, st)
			}
		}
		for run := 1; run <= 3; run++ {
			for _, st := range stages {
				restore() // each stage runs on the sample inputs
				r, err := s.Runs().New(RunRequest{Stage: st.Name, Force: true, Committed: state.RegenerateCommitted, PastGate: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.Execute(ctx); err != nil {
					// The model's answer need not pass the stage's checks:
					// its calls are in the trace either way.
					t.Logf("%s/%s run %d: %v", name, st.Name, run, err)
				}
			}
		}
		restore()
		calls, err := workflow.ModelCalls(ws, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for edited := 0; edited < 2; edited++ {
			if edited == 1 {
				for _, st := range stages {
					src, err := os.ReadFile(st.Contract)
					if err != nil {
						t.Fatal(err)
					}
					src = []byte(strings.Replace(string(src), "## Process\n", "## Process\nKeep every sentence short and concrete; name the tool, the command or the file each step needs, and say what the reader should see when it worked.\n\n", 1))
					if err := os.WriteFile(st.Contract, src, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			s, ws, rep := open()
			client, err := s.modelClient()
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range stages {
				k := rep.Stage(st.Name).Contract
				label := name + "/" + st.Name
				if edited == 1 {
					label += " (edited)"
				}
				n, err := s.Counts().Stage(ctx, ws, st, k, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy}, nil, s.startingLister(10*time.Second))
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if len(n.ToolsLeftOut) > 0 {
					t.Fatalf("%s: counted without tools: %v", label, n.ToolsLeftOut)
				}
				counts := []tokens.Count{n.First}
				if len(n.Items) > 0 {
					counts = counts[:0]
					for _, it := range n.Items {
						counts = append(counts, it.Count)
					}
				}
				call := promptcount.CallOf(ctx, ws.Config.Model, k, model, s.startingLister(10*time.Second))
				reqs := firstCalls(t, ws, st, rep, call)
				if len(reqs) != len(counts) {
					t.Fatalf("%s: %d counts, %d first calls", label, len(counts), len(reqs))
				}
				for i, req := range reqs {
					// The server's count of the same call (a For each run
					// stops at its first failed item, so the runs may not
					// have made every item's).
					req.Options = llm.Options{MaxOutput: 1}
					resp, err := client.Chat(ctx, req)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					server := resp.PromptTokens
					if ran := firstCallCount(calls, st.Name, i, len(reqs)); edited == 0 && ran > 0 && ran != server {
						t.Errorf("%s call %d: the runs' first call counted %d, the same call now %d", label, i+1, ran, server)
					}
					c := counts[i]
					off := float64(c.Tokens-server) / float64(server)
					worst = math.Max(worst, math.Abs(off))
					t.Logf("%-42s call %d: calibrated %5d, server %5d (%+.2f%%, %s)", label, i+1, c.Tokens, server, 100*off, c.Label())
					if c.Method != tokens.Calibrated || c.Label() != "calibrated from 3 runs" {
						t.Errorf("%s: the count says %q, want calibrated from the 3 runs", label, c.Label())
					}
					if math.Abs(off) > limit {
						t.Errorf("%s: calibrated %d, the server counted %d: %.2f%% off, want within %.0f%%", label, c.Tokens, server, 100*off, 100*limit)
					}
				}
			}
		}
	}
	t.Logf("largest difference: %.2f%%", 100*worst)
}

// firstCallCount is the server's count of a stage's first call (of its
// item-th item's, from 0) in the newest run that made it, from the trace
// (a For each run stops at its first failed item, so a run may lack the
// later ones).
func firstCallCount(calls []workflow.ModelCall, stage string, item, items int) int {
	for _, c := range calls { // newest run first
		if c.Stage == stage && c.Call == 1 && (items == 1 || c.Index == item+1) {
			return c.Server
		}
	}
	return 0
}

// TestCalibratedFromHistoryScripted: against the scripted server, whose
// prompt count is its own bytes-based one, calibration from three runs of
// each stage brings the estimate within 2% of it.
func TestCalibratedFromHistoryScripted(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "scripted", ContextLength: 65536, Capabilities: []string{"completion", "tools"}}}})
	srv.Default(ollamatest.Text("## Notes\n\nA short answer."))
	checkCalibratedFromHistory(t, srv.URL(), "scripted", 0.02)
}

// TestCalibratedFromHistoryRealServer: the same on the real server with
// the Qwen3-vocabulary model, whose prompt_eval_count is the truth.
func TestCalibratedFromHistoryRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("realollama: -short skips tests that start a real Ollama server")
	}
	realollama.NeedQwen3(t)
	srv := realollama.Start(t, realollama.Options{Model: realollama.ModelSpec{Vocabulary: realollama.VocabQwen3, ContextLength: 32768}})
	checkCalibratedFromHistory(t, srv.URL, srv.Model, 0.02)
}
