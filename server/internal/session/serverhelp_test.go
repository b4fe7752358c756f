package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestNoOllamaHereFixesDependOnTheAddress: with no ollama program on this
// machine, a silent server at Ollama's own address (127.0.0.1:11434) is
// an Ollama to install, Install first; at an address the person chose it
// is their server (a container, another program), most likely stopped:
// setting the address comes first and the hint says to start it. Before,
// both led with Install Ollama.
func TestNoOllamaHereFixesDependOnTheAddress(t *testing.T) {
	s := &Session{opts: Options{Getenv: func(k string) string {
		if k == "PATH" {
			return t.TempDir()
		}
		return ""
	}}}
	for _, tt := range []struct {
		url, first, hint string
	}{
		{"http://127.0.0.1:11434", string(fault.InstallServer), "install Ollama, start it"},
		{"http://127.0.0.1:18434", string(fault.SetServer), "start the server you run at http://127.0.0.1:18434"},
	} {
		f := &fault.Error{Kind: fault.KindModelUnreachable, Msg: "no model server at " + tt.url,
			Actions: []fault.Action{{ID: fault.StartServer, Command: "ollama serve", URL: tt.url}}}
		g := s.onThisMachine(f, "qwen3.5:9b")
		if !strings.Contains(g.Msg, "Ollama is not installed on this machine") {
			t.Errorf("%s: message %q", tt.url, g.Msg)
		}
		if len(g.Actions) != 3 || string(g.Actions[0].ID) != tt.first || !strings.Contains(g.Hint, tt.hint) {
			t.Errorf("%s: actions %+v, hint %q; want %s first and %q", tt.url, g.Actions, g.Hint, tt.first, tt.hint)
		}
	}
}

// TestComposeCommandRunsFromAnyFolder: the doctor's command that starts
// SearXNG names icm's compose file by its full path when it sits beside
// the icm that runs (bin/icm of a checkout), so it works from a
// workspace's folder; elsewhere it says where the relative path holds.
// Before, it was 'docker compose -f docker/compose.yml ...' from anywhere.
func TestComposeCommandRunsFromAnyFolder(t *testing.T) {
	repo := wstest.RepoRoot(t)
	in := &Session{opts: Options{Self: filepath.Join(repo, "bin", "icm")}}
	if got, want := in.Doctor().composeCommand("searxng"), "docker compose -f "+filepath.Join(repo, "docker", "compose.yml")+" up -d searxng"; got != want {
		t.Errorf("beside a checkout: %q, want %q", got, want)
	}
	out := &Session{opts: Options{Self: filepath.Join(t.TempDir(), "bin", "icm")}}
	if got := out.Doctor().composeCommand("searxng"); !strings.HasSuffix(got, "(in the icm repository)") {
		t.Errorf("elsewhere: %q", got)
	}
}
