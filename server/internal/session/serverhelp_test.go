package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
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
		{"http://127.0.0.1:18434", string(fault.SetServer), "start the server you run there"},
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

// TestStartingOllamaSetsWhatSharingNeeds: the Start Ollama fix for a
// workspace that runs For each items in parallel starts the server with
// the multi-user cache and as many slots, where the model runs on
// Ollama's new engine (read from its file) and never over a variable the
// person set; for a model on llama.cpp's runner, where the multi-user
// cache stops the runner, it sets nothing.
func TestStartingOllamaSetsWhatSharingNeeds(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "ollama"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- config.toml --
[workflow]
parallel = 4
`)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		arch, set, want string
	}{
		{"qwen3", "", "OLLAMA_MULTIUSER_CACHE=1 OLLAMA_NUM_PARALLEL=4 ollama serve"},
		{"qwen3", "OLLAMA_MULTIUSER_CACHE", "OLLAMA_NUM_PARALLEL=4 ollama serve"},
		{"llama", "", "ollama serve"},
	} {
		models := t.TempDir()
		if err := realollama.LayOut(models, "qwen3.5:9b", realollama.ModelSpec{Architecture: tt.arch}, ""); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"PATH": bin, "OLLAMA_MODELS": models, tt.set: "0"}
		s := &Session{ws: ws, opts: Options{Getenv: func(k string) string { return env[k] }}}
		f := &fault.Error{Kind: fault.KindModelUnreachable, Msg: "no model server at http://127.0.0.1:11434",
			Actions: []fault.Action{{ID: fault.StartServer, Command: "ollama serve", URL: "http://127.0.0.1:11434"}}}
		g := s.onThisMachine(f, "qwen3.5:9b")
		if len(g.Actions) == 0 || g.Actions[0].ID != fault.StartServer || g.Actions[0].Command != tt.want {
			t.Errorf("%s, %q set: actions %+v, want Start with %q", tt.arch, tt.set, g.Actions, tt.want)
		}
		if f.Actions[0].Command != "ollama serve" {
			t.Errorf("the fault given was changed: %+v", f.Actions)
		}
	}
}
