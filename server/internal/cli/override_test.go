package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestRunWithModelThenApprove: a stage run with --model is approved by the
// command icm run prints, and icm status judges it the same way with the
// same --model. Before the session layer, the printed `icm approve
// 01-draft` refused the stage as stale.
func TestRunWithModelThenApprove(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "qwen3.5:9b", ContextLength: 32768}, {Name: "llama3.1:8b", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("# Draft\n\nA first draft."))
	parent := t.TempDir()
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if _, errOut, err := runIn(t, parent, vars, "init", "notes"); err != nil {
		t.Fatalf("init: %v %s", err, errOut)
	}
	dir := filepath.Join(parent, "notes")
	out, errOut, err := runIn(t, dir, vars, "run", "--model", "llama3.1:8b")
	if err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	if reqs := srv.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "llama3.1:8b" {
		t.Fatalf("chat requests %+v, want one to llama3.1:8b", reqs)
	}
	m := regexp.MustCompile(`(?m)^\s+(icm approve .*)$`).FindStringSubmatch(out)
	if m == nil || m[1] != "icm approve 01-draft --model llama3.1:8b" {
		t.Fatalf("run printed no approve command with the model:\n%s", out)
	}

	// Without the override the stage reads as stale, and says why.
	out, _, err = runIn(t, dir, vars, "status")
	if err != nil || !strings.Contains(out, "01-draft  stale") || !strings.Contains(out, "llama3.1:8b") {
		t.Errorf("status without --model (%v):\n%s", err, out)
	}
	out, _, err = runIn(t, dir, vars, "status", "--model", "llama3.1:8b")
	if err != nil || !strings.Contains(out, "01-draft  awaiting review") || !strings.Contains(out, "`icm approve 01-draft --model llama3.1:8b`") {
		t.Errorf("status --model (%v):\n%s", err, out)
	}

	// The printed command, as a person pastes it.
	out, errOut, err = runIn(t, dir, vars, strings.Fields(m[1])[1:]...)
	if err != nil || !strings.Contains(out, "approved 01-draft") {
		t.Fatalf("%s: %v\n%s%s", m[1], err, out, errOut)
	}
	out, _, err = runIn(t, dir, vars, "status", "--model", "llama3.1:8b")
	if err != nil || !strings.Contains(out, "01-draft  approved") {
		t.Errorf("status after approval (%v):\n%s", err, out)
	}
}

// childEnvWorkspace is a Script stage that writes down the model and
// model server icm gives its own child processes.
const childEnvWorkspace = `
-- CLAUDE.md --
# Env
-- config.toml --
[model]
name = "config-model"
%s
-- pipeline/01-env/CONTEXT.md --
# Stage: 01-env

## Script
printf '%%s|%%s\n' "$ICM_MODEL" "$OLLAMA_HOST" > "$ICM_OUTPUT/env.txt"

## Outputs
- env.txt -> output/
`

// TestChildProcessesGetTheRunsModel: one rule for the environment of
// icm's own child processes. ICM_MODEL=a icm run --model b gives them b;
// OLLAMA_HOST is the run's server only when that server speaks Ollama's
// API (an OpenAI-compatible base URL is not an Ollama host).
func TestChildProcessesGetTheRunsModel(t *testing.T) {
	cases := []struct {
		name, model string
		want        string
	}{
		{"ollama", "base_url = \"http://127.0.0.1:8\"", "b|http://127.0.0.1:8"},
		{"openai", "provider = \"openai\"\nbase_url = \"http://127.0.0.1:8/v1\"", "b|http://inherited:9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := strings.Replace(childEnvWorkspace, "%s\n", c.model+"\n", 1)
			dir := wstest.Write(t, strings.ReplaceAll(ws, "%%", "%"))
			t.Setenv("OLLAMA_HOST", "http://inherited:9")
			vars := map[string]string{"ICM_MODEL": "a", "OLLAMA_HOST": "http://inherited:9"}
			out, errOut, err := runIn(t, dir, vars, "run", "--model", "b")
			if err != nil {
				t.Fatalf("run: %v\n%s%s", err, out, errOut)
			}
			got, err := os.ReadFile(filepath.Join(dir, "pipeline/01-env/output/env.txt"))
			if err != nil || strings.TrimSpace(string(got)) != c.want {
				t.Errorf("the script saw %q (%v), want %q", got, err, c.want)
			}
		})
	}
}
