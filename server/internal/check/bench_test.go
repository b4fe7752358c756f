package check

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// generate writes a workspace of n stages, each reading the previous
// stage's output, a shared reference and its own input, and returns its root.
func generate(b testing.TB, n int) string {
	root := b.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("CLAUDE.md", "# Identity\n\nYou help with one stage at a time.\n")
	write("CONTEXT.md", "# Routing\n\nStages run in order.\n")
	write("_config/audience.md", "# Audience\n\n## Who\nDevelopers.\n\n## Tone\nPlain.\n")
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%03d-step", i)
		prev := ""
		if i > 1 {
			prev = fmt.Sprintf("- Layer 4 (working): ../%03d-step/output/out.md\n", i-1)
		}
		write("pipeline/"+name+"/input.md", fmt.Sprintf("# Input %d\n\nSome working material for step %d.\n", i, i))
		write("pipeline/"+name+"/CONTEXT.md", fmt.Sprintf(`# Stage: %s

Step %d of the generated pipeline.

## Inputs
- Layer 4 (working): input.md
%s- Layer 3 (reference): ../../_config/audience.md#Tone

## Tools
none

## Process
Transform the working material into the next step's input. Keep every
heading, and write Markdown only.

## Outputs
- out.md -> output/

## Verify
- non-empty
`, name, i, prev))
	}
	real, _ := filepath.EvalSymlinks(root)
	return real
}

// BenchmarkCheckWorkspace500 parses, checks and assembles every stage of a
// generated 500-stage workspace (target: under 300 ms).
func BenchmarkCheckWorkspace500(b *testing.B) {
	root := generate(b, 500)
	start := cpuTime()
	for b.Loop() {
		ws, err := workspace.Open(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		rep := Run(ws, Options{})
		if len(rep.Stages) != 500 || rep.HasErrors() {
			b.Fatalf("stages %d, errors %v", len(rep.Stages), rep.HasErrors())
		}
		ws.Close()
	}
	reportCPU(b, start)
}

// reportCPU adds the processor time per operation since start (user and
// system, all threads) as cpu-ms/op.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkParseContract parses one contract of the sample workspace
// (target: under 1 ms).
func BenchmarkParseContract(b *testing.B) {
	p := filepath.Join(wstest.Shipped(b, "course-research"), "pipeline", "02-research", "CONTEXT.md")
	src, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		contract.Parse(p, src)
	}
}

func TestGeneratedWorkspaceChecksClean(t *testing.T) {
	ws, err := workspace.Open(generate(t, 20), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(ws, Options{})
	for _, f := range rep.Findings {
		if f.Severity <= contract.Warning {
			t.Errorf("%s", f)
		}
	}
}
