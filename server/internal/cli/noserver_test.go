package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestNoServerSaysWhatToDo: `icm run` (what make run runs) without a
// model server tells the three cases apart, each with what to do: Ollama
// not installed (install it, or try the demo), installed but not running
// (start it), running without the model (icm pull). Before, all it said
// was "no model server" and `ollama serve`, also where no ollama exists,
// and nothing named the demo.
func TestNoServerSaysWhatToDo(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	trusttest.Grant(t, dir) // as make run does
	bin := t.TempDir()
	fake := filepath.Join(bin, "ollama")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}}})
	for _, tt := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"not installed", map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1", "PATH": t.TempDir()},
			[]string{"Ollama is not installed", "install Ollama:", "https://ollama.com/download", "icm pull qwen3.5:9b", "icm demo"}},
		{"installed, not running", map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1", "PATH": bin},
			[]string{"Ollama is installed here but not running", "ollama serve", "icm demo"}},
		{"running without the model", map[string]string{"OLLAMA_HOST": srv.URL(), "PATH": bin},
			[]string{"qwen3.5:9b", "icm pull qwen3.5:9b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runAsUser(t, dir, tt.vars, "run", "-w", dir)
			if code == 0 {
				t.Fatal("the run succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("the message does not say %q:\n%s", w, errOut)
				}
			}
			if tt.name == "not installed" && strings.Contains(errOut, "start the server:") {
				t.Errorf("it offers to start a server that is not installed:\n%s", errOut)
			}
		})
	}
}
