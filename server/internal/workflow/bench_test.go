package workflow_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// forEachWorkspace is one For each stage over an n-item plan.
func forEachWorkspace(tb testing.TB, n, parallel int) string {
	return forEachWorkspaceWith(tb, n, parallel, "")
}

// forEachWorkspaceWith is forEachWorkspace with more [model] lines
// (a provider, [[model.servers]] tables).
func forEachWorkspaceWith(tb testing.TB, n, parallel int, model string) string {
	tb.Helper()
	return wstest.Write(tb, fmt.Sprintf(`
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "qwen3.5:9b"
%s
[workflow]
parallel = %d
-- plan.md --
%s
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## For each
part in ../../plan.md
## Process
WRITE the part shown below.
## Outputs
- parts.md -> output/
`, model, parallel, plan(n)))
}

func runOnce(tb testing.TB, dir string, client llm.Client) *report.Summary {
	ws := openWS(tb, dir)
	eng, err := workflow.New(ws, workflow.Options{Client: client, Stage: "01-write", Force: true})
	if err != nil {
		tb.Fatal(err)
	}
	sum, err := eng.Run(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return sum
}

// BenchmarkForEach8 runs For each over 8 items against a model server that
// answers each call in 200 ms with 4 slots, one item at a time and four at
// a time (goal: parallel at most 0.3x the sequential wall time).
func BenchmarkForEach8(b *testing.B) {
	for _, parallel := range []int{1, 4} {
		b.Run(fmt.Sprintf("parallel=%d", parallel), func(b *testing.B) {
			srv := ollamatest.New(b, ollamatest.Config{
				Models:  []ollamatest.Model{{Name: model, ContextLength: 32768}},
				Latency: 200 * time.Millisecond, Slots: 4,
			})
			scriptSmall(srv, 8)
			client, _ := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()))
			dir := forEachWorkspace(b, 8, parallel)
			for b.Loop() {
				runOnce(b, dir, client)
			}
			b.ReportMetric(float64(srv.PeakConcurrency()), "peak-calls")
		})
	}
}

// fakeClient answers every call at once, so timing a run measures icm.
type fakeClient struct{}

func (fakeClient) Chat(_ context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	u := req.Messages[len(req.Messages)-1].Content
	i := strings.Index(u, "\n## Part ")
	return &llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: "## Part " + u[i+9:i+10] + "\n\nText."}, DoneReason: "stop", PromptTokens: 100, OutputTokens: 5}, nil
}
func (fakeClient) Show(context.Context, string) (*llm.ModelInfo, error) {
	return &llm.ModelInfo{ContextLength: 32768}, nil
}
func (fakeClient) Pull(context.Context, string, func(llm.PullProgress)) error { return nil }

// BenchmarkEngineOverheadPerCall times For each stages against a client
// that answers instantly, so everything measured is icm's own work. A
// 1-item and a 33-item stage run in each iteration: the difference over 32
// is the cost of one more model call (assembly, the loop, the item
// checkpoint, events); the 1-item time is the fixed cost of a stage run
// (checks, state, the durable output and record writes, the trace).
// Goal: under 2 ms per model call, median.
func BenchmarkEngineOverheadPerCall(b *testing.B) {
	const items = 33
	one, many := forEachWorkspace(b, 1, 1), forEachWorkspace(b, items, 1)
	var per, fixed []time.Duration
	for b.Loop() {
		start := time.Now()
		runOnce(b, one, fakeClient{})
		t1 := time.Since(start)
		start = time.Now()
		runOnce(b, many, fakeClient{})
		tn := time.Since(start)
		per = append(per, (tn-t1)/(items-1))
		fixed = append(fixed, t1)
	}
	slices.Sort(per)
	slices.Sort(fixed)
	b.ReportMetric(float64(per[len(per)/2].Microseconds()), "median-µs/call")
	b.ReportMetric(float64(fixed[len(fixed)/2].Microseconds()), "median-µs/stage-fixed")
}

// BenchmarkUnchangedPipeline is `icm run` on an approved, unchanged
// pipeline, in process and as the command (goal: no model call, under 100 ms).
func BenchmarkUnchangedPipeline(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.Config{Models: []ollamatest.Model{{Name: model, ContextLength: 32768}}})
	scriptSmall(srv, 3)
	client, _ := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()))
	dir := wstest.Write(b, small)
	for _, stage := range []string{"01-plan", "02-write", "03-count"} {
		ws := openWS(b, dir)
		eng, _ := workflow.New(ws, workflow.Options{Client: client})
		if _, err := eng.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		if stage != "03-count" {
			if _, err := workflow.Approve(context.Background(), openWS(b, dir), stage, workflow.ApproveOptions{Permit: trusted(openWS(b, dir))}); err != nil {
				b.Fatal(err)
			}
		}
	}
	calls := len(srv.ChatRequests())
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			sum := func() *report.Summary {
				eng, _ := workflow.New(openWS(b, dir), workflow.Options{Client: client})
				s, err := eng.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				return s
			}()
			if len(sum.Ran) != 0 {
				b.Fatalf("ran %v", sum.Ran)
			}
		}
	})
	b.Run("command", func(b *testing.B) {
		for b.Loop() {
			// The workspace names a Script stage: trusted for this command only.
			cmd := exec.Command(icmBin, "run", "-q", "--trust")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "OLLAMA_HOST="+srv.URL())
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "nothing to run") {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	if n := len(srv.ChatRequests()); n != calls {
		b.Fatalf("an unchanged pipeline made %d model calls", n-calls)
	}
	if traces, _ := filepath.Glob(filepath.Join(dir, "history", "*.jsonl")); len(traces) != 3 {
		b.Errorf("runs that ran nothing left traces: %d files", len(traces))
	}
}

// BenchmarkRefusedConnectionToError is a run against a model server
// address where nothing listens, with the client's default retries, in
// process and as `icm run` (goal: the error within 1 s; a refused
// connection before anything ever answered is not retried).
func BenchmarkRefusedConnectionToError(b *testing.B) {
	dir := wstest.Write(b, small)
	addr := closedport.URL(b)
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(addr))
			if err != nil {
				b.Fatal(err)
			}
			eng, _ := workflow.New(openWS(b, dir), workflow.Options{Client: client})
			if _, err := eng.Run(context.Background()); fault.KindOf(err) != fault.KindModelUnreachable {
				b.Fatalf("run against %s: %v", addr, err)
			}
		}
	})
	b.Run("command", func(b *testing.B) {
		for b.Loop() {
			// The workspace names a Script stage: trusted for this command only.
			cmd := exec.Command(icmBin, "run", "-q", "--trust")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "OLLAMA_HOST="+addr)
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no model server") {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
