package ollamamodel

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// qwen3Files lays out a models folder holding the Qwen3-vocabulary test
// model with its Qwen3-style template, as a pull would.
func qwen3Files(b *testing.B) *Files {
	b.Helper()
	if _, err := realollama.Qwen3TokenizerPath(); errors.Is(err, realollama.ErrQwen3Missing) {
		b.Skipf("SKIPPED: %v", err)
	}
	dir := b.TempDir()
	if err := realollama.LayOut(dir, "q", realollama.ModelSpec{Vocabulary: realollama.VocabQwen3}, ""); err != nil {
		b.Fatal(err)
	}
	f, err := Find([]string{dir}, "q")
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// stageRequest is a stage-sized request: course-research's 02-research
// contract, its reference files and a tool, about 2,000 tokens.
func stageRequest(b *testing.B) *api.ChatRequest {
	b.Helper()
	root := wstest.Shipped(b, "course-research")
	var sys, user []string
	for _, p := range []string{"CLAUDE.md", "CONTEXT.md", "_config/audience.md", "_config/voice.md", "pipeline/02-research/references/tool-use.md"} {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			b.Fatal(err)
		}
		sys = append(sys, string(data))
	}
	data, err := os.ReadFile(filepath.Join(root, "pipeline/02-research/CONTEXT.md"))
	if err != nil {
		b.Fatal(err)
	}
	user = append(user, string(data))
	tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: "search", Description: "Search the web."}}
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`), &tool.Function.Parameters)
	return &api.ChatRequest{Messages: []api.Message{{Role: "system", Content: strings.Join(sys, "\n\n")}, {Role: "user", Content: strings.Join(user, "\n\n")}},
		Tools: []api.Tool{tool}, Think: &api.ThinkValue{Value: false}}
}

// BenchmarkCountStageCold loads the model's files (the GGUF's 151,669
// tokens and merges, the template) and counts one stage.
func BenchmarkCountStageCold(b *testing.B) {
	f, req := qwen3Files(b), stageRequest(b)
	for b.Loop() {
		m, err := Load(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.CountChat(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountStageWarm counts one stage with the model loaded.
func BenchmarkCountStageWarm(b *testing.B) {
	f, req := qwen3Files(b), stageRequest(b)
	m, err := Load(f)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := m.CountChat(req)
	b.ReportMetric(float64(n), "tokens")
	for b.Loop() {
		if _, err := m.CountChat(req); err != nil {
			b.Fatal(err)
		}
	}
}
