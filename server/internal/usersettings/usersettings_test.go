package usersettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func write(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	t.Run("no file is the defaults", func(t *testing.T) {
		s, err := Load(env(map[string]string{ConfigDirEnv: t.TempDir()}))
		if err != nil || s.Agents.Approve || s.Path != "" {
			t.Fatalf("%+v, %v", s, err)
		}
	})
	t.Run("approve", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "[agents]\napprove = true\n")
		s, err := Load(env(map[string]string{ConfigDirEnv: dir}))
		if err != nil || !s.Agents.Approve || s.Path != filepath.Join(dir, FileName) {
			t.Fatalf("%+v, %v", s, err)
		}
	})
	t.Run("reads", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "[reads]\nworkspace = true\n")
		s, err := Load(env(map[string]string{ConfigDirEnv: dir}))
		if err != nil || !s.Reads.Workspace || s.Agents.Approve {
			t.Fatalf("%+v, %v", s, err)
		}
	})
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "icm"), "[agents]\napprove = true\n")
		s, err := Load(env(map[string]string{"XDG_CONFIG_HOME": dir}))
		if err != nil || !s.Agents.Approve {
			t.Fatalf("%+v, %v", s, err)
		}
	})
	for _, tc := range []struct{ name, text, want string }{
		{"unknown key", "[agents]\napprove = true\nmerge = true\n", "unknown setting agents.merge"},
		{"wrong type", "[agents]\napprove = \"yes\"\n", "settings.toml"},
		{"too large", "# " + strings.Repeat("x", maxSize) + "\n", "over 64 KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.text)
			s, err := Load(env(map[string]string{ConfigDirEnv: dir}))
			if err == nil || !strings.Contains(err.Error(), tc.want) || s.Agents.Approve {
				t.Fatalf("%+v, %v; want an error containing %q", s, err, tc.want)
			}
		})
	}
	t.Run("relative ICM_CONFIG_DIR", func(t *testing.T) {
		if _, err := Load(env(map[string]string{ConfigDirEnv: "conf"})); err == nil {
			t.Fatal("a relative config folder was taken")
		}
	})
}

// TestAWorkspaceCannotAllowApproving: a config folder pointed into the
// workspace (an MCP entry's env can do that) is refused, also through a
// link.
func TestAWorkspaceCannotAllowApproving(t *testing.T) {
	ws := t.TempDir()
	inWS := filepath.Join(ws, ".vscode", "icm")
	write(t, inWS, "[agents]\napprove = true\n")
	s, err := Load(env(map[string]string{ConfigDirEnv: inWS}), ws)
	if err == nil || !strings.Contains(err.Error(), "inside the workspace") || s.Agents.Approve {
		t.Fatalf("%+v, %v", s, err)
	}
	link := filepath.Join(t.TempDir(), "conf")
	if err := os.Symlink(inWS, link); err != nil {
		t.Skip(err)
	}
	s, err = Load(env(map[string]string{ConfigDirEnv: link}), ws)
	if err == nil || s.Agents.Approve {
		t.Fatalf("through a link: %+v, %v", s, err)
	}
}
