package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The person decides whether the stages' models read the whole
// workspace: their own settings say so, or the workspace's config.toml
// asks and they trusted it for that. A workspace that asks and is not
// trusted reads only what its contracts name.
func TestReadsOfTheWholeWorkspaceAreThePersons(t *testing.T) {
	cfgDir := trusttest.ConfigDir(t)
	getenv := func(k string) string { return map[string]string{usersettings.ConfigDirEnv: cfgDir}[k] }
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write(filepath.Join(dir, "CLAUDE.md"), "# Id\n")
	write(filepath.Join(dir, "pipeline/01-a/CONTEXT.md"), "# Stage: 01-a\n\n## Process\nGo.\n\n## Outputs\n- a.md -> output/\n")
	reads := func(what string) bool {
		t.Helper()
		ws, err := workspace.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		got, err := Open(ws, Options{Getenv: getenv}).readsWorkspace()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return got
	}
	if reads("nothing asked") {
		t.Error("the whole workspace is read though nobody asked")
	}
	write(filepath.Join(dir, "config.toml"), "[reads]\nworkspace = true\n")
	if reads("the workspace asks, untrusted") {
		t.Error("a workspace widened its own reads")
	}
	trusttest.Grant(t, dir)
	if !reads("the workspace asks, trusted") {
		t.Error("the person trusted the workspace's ask, and it is not in force")
	}
	write(filepath.Join(dir, "config.toml"), "")
	write(filepath.Join(cfgDir, usersettings.FileName), "[reads]\nworkspace = true\n")
	if !reads("the person's own setting") {
		t.Error("the person's own setting is not in force")
	}
}
