package stagetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// benchWorkspace has one model stage and n cases, each with its own
// stand-in, and its model calls spread over the given servers through
// [[model.servers]] with slots each.
func benchWorkspace(tb testing.TB, n, slots int, urls ...string) *workspace.Workspace {
	tb.Helper()
	var b strings.Builder
	b.WriteString("-- CLAUDE.md --\n# Bench\n-- config.toml --\n[model]\nname = \"alpha\"\ncontext_length = 8192\n")
	for _, u := range urls {
		fmt.Fprintf(&b, "[[model.servers]]\nurl = %q\nslots = %d\n", u, slots)
	}
	b.WriteString("-- pipeline/01-a/CONTEXT.md --\n# Stage: 01-a\n\n## Inputs\n- Layer 4 (working): input.md\n\n## Tools\nnone\n\n## Process\nSummarise the input.\n\n## Outputs\n- out.md -> output/\n\n## Verify\n- non-empty\n")
	b.WriteString("-- pipeline/01-a/input.md --\nThe workspace's own input.\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "-- pipeline/01-a/tests/case-%02d.md --\n# Case: %d\n\n## Inputs\n### input.md\n~~~\nTopic number %d.\n~~~\n\n## Expect\n- contains \"summary\"\n", i, i, i)
	}
	ws, err := workspace.Open(wstest.Write(tb, b.String()), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}

// BenchmarkMatrix: 20 cases × 2 models × 3 repeats, every model call
// taking 200 ms, over 4 slots (two servers of 2 slots in a pool). It
// reports the run's wall time against the sequential sum (the jobs'
// durations added up: what one job at a time would take), goal at most
// 0.3x, and, with parallel=1, the wall time of really running them one at
// a time.
func BenchmarkMatrix(b *testing.B) {
	for _, parallel := range []int{0, 1} {
		name := "pool-slots"
		if parallel == 1 {
			name = "parallel=1"
		}
		b.Run(name, func(b *testing.B) {
			cfg := ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192}, {Name: "beta", ContextLength: 8192}},
				Slots: 2, Latency: 200 * time.Millisecond}
			s1, s2 := ollamatest.New(b, cfg), ollamatest.New(b, cfg)
			for _, s := range []*ollamatest.Server{s1, s2} {
				s.Default(ollamatest.Text("A short summary of the topic."))
			}
			ws := benchWorkspace(b, 20, 2, s1.URL(), s2.URL())
			client, err := llm.FromConfig(ws.Config.Model, os.Getenv, llm.WithPermit(act.Own("a test's own model server")))
			if err != nil {
				b.Fatal(err)
			}
			p := parallel
			if p == 0 {
				p = DefaultParallel(ws.Config.Model)
			}
			sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{})
			if err != nil {
				b.Fatal(err)
			}
			var wall, seq time.Duration
			for i := 0; i < b.N; i++ {
				rep := New(ws, Backend{Client: client, Permit: allowAll}, Options{Models: []string{"alpha", "beta"}, Repeat: 3, Parallel: p}).Run(context.Background(), sel)
				if !rep.Passed || len(rep.Results) != 120 {
					b.Fatalf("passed %v, %d results: %+v", rep.Passed, len(rep.Results), rep.Matrix[0])
				}
				wall += rep.Duration
				seq += rep.SequentialSum
			}
			peak := s1.Stats().PeakActive + s2.Stats().PeakActive
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
			b.ReportMetric(seq.Seconds()/float64(b.N), "seq-sum-s")
			b.ReportMetric(float64(wall)/float64(seq), "wall/seq")
			b.ReportMetric(float64(peak), "peak-slots")
			b.ReportMetric(float64(p), "parallel")
		})
	}
}
