package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestOverrideIsAFactOfTheRun: a person tries a bigger model for one
// stage (icm run --stage S --model X), approves it with the plain command
// the run prints, and the next plain icm run goes on to the next stage
// with the configured model instead of running S again over the approved
// output; status tells which model wrote S. Before, the printed command
// needed --model, a plain approve was refused ("the model changed since
// the last run"), and a plain run ran S again.
func TestOverrideIsAFactOfTheRun(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{
		{Name: "qwen3.5:9b", ContextLength: 32768}, {Name: "llama3.1:8b", ContextLength: 32768}}})
	srv.Default(ollamatest.Text("# Draft\n\nA first draft."))
	parent := t.TempDir()
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if _, errOut, err := runIn(t, parent, vars, "init", "notes"); err != nil {
		t.Fatalf("init: %v %s", err, errOut)
	}
	dir := filepath.Join(parent, "notes")
	if _, errOut, err := runIn(t, dir, vars, "new-stage", "review"); err != nil {
		t.Fatalf("new-stage: %v %s", err, errOut)
	}
	out, errOut, err := runIn(t, dir, vars, "run", "--stage", "01-draft", "--model", "llama3.1:8b")
	if err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	if reqs := srv.ChatRequests(); len(reqs) != 1 || reqs[0].Model != "llama3.1:8b" {
		t.Fatalf("chat requests %+v, want one to llama3.1:8b", reqs)
	}
	m := regexp.MustCompile(`(?m)^\s+(icm approve .*)$`).FindStringSubmatch(out)
	if m == nil || m[1] != "icm approve 01-draft" {
		t.Fatalf("run printed no plain approve command:\n%s", out)
	}
	out, _, err = runIn(t, dir, vars, "status")
	if err != nil || !regexp.MustCompile(`01-draft +awaiting review +ran with llama3.1:8b \(configured: qwen3.5:9b\)`).MatchString(out) {
		t.Errorf("status after the override run (%v):\n%s", err, out)
	}
	// The printed command, as a person pastes it.
	out, errOut, err = runIn(t, dir, vars, strings.Fields(m[1])[1:]...)
	if err != nil || !strings.Contains(out, "approved 01-draft") {
		t.Fatalf("%s: %v\n%s%s", m[1], err, out, errOut)
	}
	out, _, err = runIn(t, dir, vars, "status")
	if err != nil || !regexp.MustCompile(`01-draft +approved +ran with llama3.1:8b \(configured: qwen3.5:9b\)`).MatchString(out) {
		t.Errorf("status after approval (%v):\n%s", err, out)
	}
	// The next plain run runs 02-review with the configured model and
	// leaves the approved 01-draft alone.
	out, errOut, err = runIn(t, dir, vars, "run")
	if err != nil || !strings.Contains(errOut, "▶ 02-review") || strings.Contains(errOut, "▶ 01-draft") {
		t.Fatalf("the next plain run (%v):\n%s%s", err, out, errOut)
	}
	if reqs := srv.ChatRequests(); len(reqs) != 2 || reqs[1].Model != "qwen3.5:9b" {
		t.Errorf("the next plain run called %+v, want one call to qwen3.5:9b", reqs[1:])
	}
	// Approving with the old --model flag still works, and judges the same.
	if out, errOut, err := runIn(t, dir, vars, "approve", "02-review", "--model", "llama3.1:8b"); err != nil || !strings.Contains(out, "approved 02-review") {
		t.Errorf("approve --model: %v\n%s%s", err, out, errOut)
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
			trusttest.Grant(t, dir)
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
