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
	reg, problems := Load(ws, Self{Path: "/opt/icm/bin/icm", Env: map[string]string{"OLLAMA_HOST": "http://127.0.0.1:2", "SEARXNG_URL": "http://ignored", "ICM_MODEL": ""}})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
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
	if n := Names(reg); !n["search-server"] || !n["other"] || len(n) != 2 {
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
