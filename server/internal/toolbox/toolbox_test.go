package toolbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func TestLoadPointsIcmAtSelf(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`
[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search"]
env = { SEARXNG_URL = "http://127.0.0.1:1" }

[mcp.servers.other]
command = "other-server"
`), 0o644)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	box, problems := LoadWith(ws, Self{Path: "/opt/icm/bin/icm", Env: map[string]string{"OLLAMA_HOST": "http://127.0.0.1:2", "SEARXNG_URL": "http://ignored", "ICM_MODEL": ""}}, nil)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	reg := box.Registry
	s := reg["search-server"]
	if s.Command != "/opt/icm/bin/icm" {
		t.Errorf("icm command = %q", s.Command)
	}
	if s.Env["OLLAMA_HOST"] != "http://127.0.0.1:2" || s.Env["SEARXNG_URL"] != "http://127.0.0.1:1" {
		t.Errorf("env = %v (the entry's own value must win, the run's host must be added)", s.Env)
	}
	if _, ok := s.Env["ICM_MODEL"]; ok {
		t.Error("an empty value was passed on")
	}
	if o := reg["other"]; o.Command != "other-server" || len(o.Env) != 0 {
		t.Errorf("a third-party server was changed: %+v", o)
	}
	if n := box.Names(); !n["search-server"] || !n["other"] || len(n) != 2 {
		t.Errorf("names = %v", n)
	}
}

func TestSelfEnvPassesOnlyKnownVariables(t *testing.T) {
	env := map[string]string{"OLLAMA_HOST": "h", "SECRET_TOKEN": "s", "SEARXNG_URL": "u"}
	got := SelfEnv(func(k string) string { return env[k] })
	if got["OLLAMA_HOST"] != "h" || got["SEARXNG_URL"] != "u" || got["SECRET_TOKEN"] != "" || len(got) != 2 {
		t.Errorf("SelfEnv = %v", got)
	}
}

func TestStageEnvironmentWinsOverInheritedButNotOverTheEntry(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`
[mcp.servers.browser]
command = "icm"
args = ["mcp", "browser"]

[mcp.servers.pinned]
command = "icm"
args = ["mcp", "browser"]
env = { ICM_MODEL = "pinned-model" }

[mcp.servers.other]
command = "other-server"
`), 0o644)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// ICM_MODEL=a in the environment; the stage runs on b.
	box, _ := LoadWith(ws, Self{Path: "/opt/icm", Env: map[string]string{"ICM_MODEL": "a", "SEARXNG_URL": "http://s"}}, nil)
	reg := box.With(map[string]string{"ICM_MODEL": "b", "OLLAMA_HOST": "http://h"})
	if e := reg["browser"].Env; e["ICM_MODEL"] != "b" || e["OLLAMA_HOST"] != "http://h" || e["SEARXNG_URL"] != "http://s" {
		t.Errorf("browser env = %v: the stage's model and host must win over inherited values, the rest be kept", e)
	}
	if e := reg["pinned"].Env; e["ICM_MODEL"] != "pinned-model" {
		t.Errorf("pinned env = %v: the entry's own value must win", e)
	}
	if e := reg["other"].Env; len(e) != 0 {
		t.Errorf("a third-party server got %v", e)
	}
	if box.Registry["browser"].Env["ICM_MODEL"] != "a" {
		t.Error("With changed the box's own registry")
	}
}
