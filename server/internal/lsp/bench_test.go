package lsp_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// p95 reports the 95th percentile of samples in milliseconds.
func p95(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
}

// benchEditor is a fake editor on course-research with logs discarded;
// getenv, when set, is the server's environment.
func benchEditor(b *testing.B, getenv func(string) string) *lsptest.Editor {
	dir := wstest.Copy(b, "course-research")
	return lsptest.Start(b, lsptest.Config{Root: dir, Options: lsp.Options{Log: io.Discard, Self: icmBin, Getenv: getenv}, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
}

// BenchmarkTypingToDiagnostics measures one keystroke in a contract of the
// sample workspace until the diagnostics it changes are published (the
// edit alternately breaks and fixes an input path).
func BenchmarkTypingToDiagnostics(b *testing.B) {
	benchTyping(b, benchEditor(b, nil))
}

// BenchmarkTypingToDiagnosticsExact is the same with exact counting on
// (see BenchmarkHoverExact): each change is counted after its diagnostics
// are out, so a keystroke that arrives during a count waits for it.
func BenchmarkTypingToDiagnosticsExact(b *testing.B) {
	benchTyping(b, benchEditor(b, qwen3Models(b)))
}

func benchTyping(b *testing.B, ed *lsptest.Editor) {
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "clean", lsptest.None)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if i%2 == 0 {
			ed.Edit(scope, "working): input.md", "working): inputs.md")
			ed.AwaitDiagnostics(scope, "broken", lsptest.HasCode("input-missing"))
		} else {
			ed.Edit(scope, "working): inputs.md", "working): input.md")
			ed.AwaitDiagnostics(scope, "fixed", lsptest.None)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	p95(b, samples)
}

// BenchmarkTypingNewText is BenchmarkTypingToDiagnostics with a text the
// server has not seen at every keystroke, as in real typing (the edit
// also adds a character to the Process), one keystroke every 100 ms:
// with exact counting on, the changed stage is counted afresh after each
// keystroke's diagnostics.
func BenchmarkTypingNewText(b *testing.B) {
	benchNewText(b, benchEditor(b, nil))
}

// BenchmarkTypingNewTextExact is BenchmarkTypingNewText with exact
// counting on.
func BenchmarkTypingNewTextExact(b *testing.B) {
	benchNewText(b, benchEditor(b, qwen3Models(b)))
}

func benchNewText(b *testing.B, ed *lsptest.Editor) {
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "clean", lsptest.None)
	const gap = 100 * time.Millisecond
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := strings.Replace(ed.Text(scope), "padded list.", "padded list.!", 1)
		start := time.Now()
		if i%2 == 0 {
			ed.SetText(scope, strings.Replace(text, "working): input.md", "working): inputs.md", 1))
			ed.AwaitDiagnostics(scope, "broken", lsptest.HasCode("input-missing"))
		} else {
			ed.SetText(scope, strings.Replace(text, "working): inputs.md", "working): input.md", 1))
			ed.AwaitDiagnostics(scope, "fixed", lsptest.None)
		}
		samples = append(samples, time.Since(start))
		b.StopTimer()
		time.Sleep(gap)
		b.StartTimer()
	}
	b.StopTimer()
	p95(b, samples)
}

// qwen3Models lays out a models folder holding course-research's model
// with Qwen3's vocabulary and returns an environment that points
// OLLAMA_MODELS at it.
func qwen3Models(b *testing.B) func(string) string {
	b.Helper()
	if _, err := realollama.Qwen3TokenizerPath(); errors.Is(err, realollama.ErrQwen3Missing) {
		b.Skipf("SKIPPED: %v", err)
	}
	models := b.TempDir()
	if err := realollama.LayOut(models, "qwen3.5:9b", realollama.ModelSpec{Vocabulary: realollama.VocabQwen3}, ""); err != nil {
		b.Fatal(err)
	}
	return func(k string) string {
		if k == "OLLAMA_MODELS" {
			return models
		}
		return os.Getenv(k)
	}
}

// BenchmarkHover measures a hover on a stage title (the assembled context
// with its token table) and on an input line, with no model files here:
// the counts are estimates.
func BenchmarkHover(b *testing.B) {
	ed := benchEditor(b, nil)
	benchHover(b, ed, "tokens, estimated")
}

// BenchmarkHoverExact is BenchmarkHover with exact counting on: the
// models folder holds the workspace's model with Qwen3's vocabulary (the
// server at 127.0.0.1:1 does not answer, so the local files are trusted,
// as for a local Ollama that is not running). Counting happens once per
// change, after the diagnostics; a hover on an unchanged document only
// reads the counts. first-count-ms is opening to the first exact count
// (loading the vocabulary included).
func BenchmarkHoverExact(b *testing.B) {
	benchHover(b, benchEditor(b, qwen3Models(b)), "tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)")
}

// benchHover opens the scope stage, checks the title's hover says want,
// then times hovers on the title and on an input line.
func benchHover(b *testing.B, ed *lsptest.Editor, want string) {
	start := time.Now()
	ed.Open(scope)
	ed.AwaitDiagnostics(scope, "analysed", lsptest.None)
	title, input := ed.Pos(scope, "# Stage", 2), ed.Pos(scope, "input.md", 0)
	// The first hover waits for the window query and the analysis's counts.
	h, err := ed.Hover(scope, title)
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(h, want) {
		b.Fatalf("the hover does not say %q:\n%s", want, h)
	}
	first := time.Since(start)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pos := title
		if i%2 == 1 {
			pos = input
		}
		start := time.Now()
		h, err := ed.Hover(scope, pos)
		samples = append(samples, time.Since(start))
		if err != nil || h == "" {
			b.Fatalf("hover = %q, %v", h, err)
		}
	}
	b.StopTimer()
	p95(b, samples)
	b.ReportMetric(float64(first.Microseconds())/1000, "first-count-ms")
}

// bigWorkspace writes a workspace of n stages, each reading the previous
// stage's output (not produced yet, so every contract has a diagnostic).
func bigWorkspace(b *testing.B, n int) string {
	var sb strings.Builder
	sb.WriteString("-- CLAUDE.md --\n# Big\n\nA generated workspace.\n-- CONTEXT.md --\n# Routing\n\nStages in order.\n-- _config/rules.md --\n# Rules\n\nBe brief.\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "-- pipeline/%04d-step/CONTEXT.md --\n# Stage: %04d-step\n\nStep %d.\n\n## Inputs\n", i, i, i)
		if i > 1 {
			fmt.Fprintf(&sb, "- Layer 4 (working): ../%04d-step/output/out.md\n", i-1)
		} else {
			sb.WriteString("- Layer 4 (working): ../../_config/rules.md\n")
		}
		sb.WriteString("- Layer 3 (reference): ../../_config/rules.md\n\n## Tools\nnone\n\n## Process\nDo the step.\n\n## Outputs\n- out.md -> output/\n")
	}
	return wstest.Write(b, sb.String())
}

// BenchmarkOpen500Stages measures opening a 500-stage workspace until the
// diagnostics of every contract are published.
func BenchmarkOpen500Stages(b *testing.B) {
	const n = 500
	dir := bigWorkspace(b, n)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ed := lsptest.Start(b, lsptest.Config{Root: dir, Options: lsp.Options{Log: io.Discard}, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
		// The first stage reads a file that exists and is clean, so it has
		// nothing to publish; the other n-1 each have a note.
		ed.Await("diagnostics of every contract", func() bool { return ed.DiagnosedFiles() >= n-1 })
		samples = append(samples, time.Since(start))
		ed.Shutdown()
	}
	b.StopTimer()
	p95(b, samples)
}

// BenchmarkMemory500Stages runs icm lsp as a process on the 500-stage
// workspace and reports its peak resident memory (VmHWM).
func BenchmarkMemory500Stages(b *testing.B) {
	const n = 500
	dir := bigWorkspace(b, n)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(icmBin, "lsp")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		ed := lsptest.Connect(b, pipeRWC{stdout, stdin}, lsptest.Config{Root: dir, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
		ed.Initialize()
		ed.Await("diagnostics of every contract", func() bool { return ed.DiagnosedFiles() >= n-1 })
		ed.Open("pipeline/0250-step/CONTEXT.md")
		for j := 0; j < 20; j++ { // some typing
			ed.Edit("pipeline/0250-step/CONTEXT.md", "Do the step.", "Do the step!")
			ed.Edit("pipeline/0250-step/CONTEXT.md", "Do the step!", "Do the step.")
		}
		if _, err := ed.Hover("pipeline/0250-step/CONTEXT.md", ed.Pos("pipeline/0250-step/CONTEXT.md", "# Stage", 2)); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(peakRSS(b, cmd.Process.Pid), "peak-RSS-MB")
		_ = ed.Call("shutdown", nil, nil)
		ed.Notify("exit", nil)
		_ = cmd.Wait()
	}
}

// peakRSS reads a process's peak resident set size in MB from /proc.
func peakRSS(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmHWM in /proc status")
	return 0
}
