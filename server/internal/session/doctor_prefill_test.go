package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestDoctorSaysWhatParallelItemsCost: with this workspace's figures (its
// For each stage's items, what they share), the doctor says what
// parallel items cost on a server that does not share prefixes and what
// fixes it for the model, read from the model's file: the multi-user
// cache where it runs on Ollama's new engine, one item at a time where it
// runs on llama.cpp's runner, on which config.toml's multiuser_cache =
// true is an error.
func TestDoctorSaysWhatParallelItemsCost(t *testing.T) {
	for _, tt := range []struct {
		name, arch, config string
		status, says, fix  string
	}{
		{"new engine", "qwen3", "parallel = 4", DiagWarn, "3 items in parallel prefill the shared", "OLLAMA_MULTIUSER_CACHE=1 OLLAMA_NUM_PARALLEL=4 ollama serve"},
		{"llama.cpp", "llama", "parallel = 4", DiagWarn, "safe only on Ollama's new engine", "[workflow] parallel = 1"},
		{"shared on the new engine", "qwen3", "parallel = 4\n[model]\nmultiuser_cache = true", DiagOK, "copies its computed start to the 2 that follow", ""},
		{"shared on llama.cpp", "llama", "parallel = 4\n[model]\nmultiuser_cache = true", DiagFail, "stops at the first copy", "multiuser_cache = false"},
		{"one at a time", "llama", "parallel = 1", DiagOK, "one item at a time", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := wstest.Write(t, fmt.Sprintf(`
-- CLAUDE.md --
# Identity
-- config.toml --
[workflow]
%s
-- plan.md --
# Plan

## Part A
- the first point

## Part B
- the second point

## Part C
- the third point
-- pipeline/01-write/CONTEXT.md --
# Stage: 01-write
## Inputs
- Layer 3 (reference): ../../plan.md
## For each
part in ../../plan.md
## Process
Write the part shown below, in the voice of the plan.
## Outputs
- parts.md -> output/
`, tt.config))
			models := t.TempDir()
			if err := realollama.LayOut(models, "tiny", realollama.ModelSpec{Architecture: tt.arch}, ""); err != nil {
				t.Fatal(err)
			}
			ws, err := workspace.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"OLLAMA_MODELS": models, "OLLAMA_HOST": "127.0.0.1:1"}
			s := Open(ws, Options{Settings: Settings{Model: "tiny"}, Getenv: func(k string) string { return env[k] }})
			defer s.Close()
			var line *DiagLine
			d := &Diagnosis{}
			rep := s.Check(nil)
			s.Doctor().prefill(context.Background(), d, "tiny", rep)
			for i := range d.Lines {
				if d.Lines[i].ID == "prefill" {
					line = &d.Lines[i]
				}
			}
			if line == nil {
				t.Fatal("no prefill line")
			}
			if line.Status != tt.status || !strings.Contains(line.Text, tt.says) || !strings.Contains(line.Text, "01-write: 3 items of ") {
				t.Errorf("%s: %q, want %s saying %q with the stage's figures", line.Status, line.Text, tt.status, tt.says)
			}
			switch {
			case tt.fix == "" && line.Fix != nil:
				t.Errorf("fix %+v, want none", line.Fix)
			case tt.fix != "" && (line.Fix == nil || !strings.Contains(line.Fix.Command+line.Fix.Setting, tt.fix)):
				t.Errorf("fix %+v, want %q", line.Fix, tt.fix)
			}
		})
	}
}
