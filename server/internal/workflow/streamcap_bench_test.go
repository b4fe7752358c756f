package workflow_test

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// BenchmarkRunEndlessStream runs `icm run` against a model server that
// streams forever and never says done, and reports the icm process's peak
// resident memory (goal: under 100 MB) and how long the run took to give
// up (the answer cap ends it; without one it never ends).
func BenchmarkRunEndlessStream(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	srv.Default(ollamatest.Flood("word ", 0))
	dir := wstest.Write(b, `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write it.

## Outputs
- out.md -> output/
`)
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(icmBin, "run", "--force")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OLLAMA_HOST="+srv.URL())
		if err := cmd.Run(); err == nil {
			b.Fatal("the run finished: an endless answer was taken as done")
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss) // KB on Linux
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
}
