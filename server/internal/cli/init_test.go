package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// runIn runs the command line in dir with only the environment vars holds.
func runIn(t *testing.T, dir string, vars map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if v, ok := vars[k]; ok || k != usersettings.ConfigDirEnv {
				return v
			}
			// The test's config folder (trust records), never the person's.
			return os.Getenv(k)
		}, Getwd: func() (string, error) { return dir, nil }}
	err := Run(context.Background(), env, args)
	return out.String(), errb.String(), err
}

// TestInitNewStageCheckRun: a workspace made by icm init and icm new-stage
// passes icm check, and its first stage runs against the scripted model
// server through the command line, as a person would run it.
func TestInitNewStageCheckRun(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	srv.On(ollamatest.UserContains("Write a first draft")).Reply(ollamatest.Text("# Draft\n\nA first draft of the idea."))
	parent := t.TempDir()
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	out, errOut, err := runIn(t, parent, vars, "init", "notes")
	if err != nil || !strings.Contains(out, "pipeline/01-draft/CONTEXT.md") {
		t.Fatalf("init: %v\n%s%s", err, out, errOut)
	}
	dir := filepath.Join(parent, "notes")
	if out, errOut, err = runIn(t, dir, vars, "new-stage", "review"); err != nil || !strings.Contains(out, "pipeline/02-review/CONTEXT.md") {
		t.Fatalf("new-stage: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = runIn(t, dir, vars, "check")
	if err != nil || !strings.Contains(out, "2 stages, 0 errors, 0 warnings") {
		t.Fatalf("check: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = runIn(t, dir, vars, "run")
	if err != nil || !strings.Contains(out, "icm approve 01-draft") {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	draft, err := os.ReadFile(filepath.Join(dir, "pipeline/01-draft/output/draft.md"))
	if err != nil || !strings.Contains(string(draft), "A first draft of the idea.") {
		t.Fatalf("draft: %v %q", err, draft)
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

func TestInitFromAnotherWorkspace(t *testing.T) {
	src := wstest.Copy(t, "course-research")
	parent := t.TempDir()
	out, errOut, err := runIn(t, parent, nil, "init", "course-go", "--from", src)
	if err != nil || !strings.Contains(out, "pipeline/02-research/references/tool-use.md") || strings.Contains(out, "output/") {
		t.Fatalf("init --from: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = runIn(t, filepath.Join(parent, "course-go"), nil, "check")
	if err != nil || !strings.Contains(out, "0 errors") {
		t.Fatalf("check: %v\n%s%s", err, out, errOut)
	}
	if _, _, err := runIn(t, parent, nil, "init", "x", "--from", src, "--stage", "a"); err == nil {
		t.Error("--from with --stage was accepted")
	}
}
