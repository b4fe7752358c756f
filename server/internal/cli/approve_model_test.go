package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/scaffold"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestNextStepRepeatsTheWorkspaceFlag: the "next:" line of a command run
// with -w names the command to type with the same -w (it used to say plain
// `icm run`, which from the current folder finds no workspace or another).
// The model server answers: one that does not is the next step instead.
func TestNextStepRepeatsTheWorkspaceFlag(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: scaffold.DefaultModel, ContextLength: 32768}}})
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	parent := t.TempDir()
	if _, errOut, code := runAsUser(t, parent, vars, "init", "notes"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	out, errOut, code := runAsUser(t, parent, vars, "status", "-w", "notes")
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
	if !strings.Contains(out, "next: 01-draft ready to run: `icm run -w notes`") {
		t.Errorf("the next step loses -w:\n%s", out)
	}
}

// TestMissingModelSaysOnceAndOffersTheInstalledOne: a model typo is told
// once (it was printed three times, the first as "model tny failed: stage
// 01-draft: model "tny" ..."), and the first fix offered is the installed
// model icm thinks was meant, not pulling the typo.
func TestMissingModelSaysOnceAndOffersTheInstalledOne(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}})
	parent := t.TempDir()
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if _, errOut, code := runAsUser(t, parent, vars, "init", "notes"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	_, errOut, code := runAsUser(t, filepath.Join(parent, "notes"), vars, "run", "--model", "tny")
	if code == 0 {
		t.Fatal("a run with a missing model succeeded")
	}
	if n := strings.Count(errOut, "is not installed"); n != 1 {
		t.Errorf("the missing model is told %d times:\n%s", n, errOut)
	}
	if strings.Contains(errOut, "failed: stage 01-draft:") {
		t.Errorf("a progress line repeats the stage:\n%s", errOut)
	}
	fixes := errOut[strings.Index(errOut, "hint:"):]
	first := strings.SplitN(strings.TrimSpace(fixes), "\n", 3)[1]
	if !strings.Contains(first, "--model tiny") {
		t.Errorf("the first fix is not the installed model:\n%s", errOut)
	}
}
