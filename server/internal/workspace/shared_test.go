package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// sharedTree writes files below a fresh folder and returns it.
func sharedTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolveInputReadsTheRepositoryReadOnly(t *testing.T) {
	root := sharedTree(t, map[string]string{
		"repo/.git/HEAD":                       "ref",
		"repo/_core/rules.md":                  "rules",
		"repo/.secrets/key.md":                 "key",
		"repo/ws/CLAUDE.md":                    "# ws",
		"repo/ws/stages/01-a/CONTEXT.md":       "# a",
		"repo/ws/_config/voice.md":             "voice",
		"above-the-repository/not-this.md":     "no",
		"repo/ws/stages/01-a/references/x.md":  "x",
		"repo/workspaces-shared/glossary.md":   "terms",
		"repo/ws/stages/01-a/output/.gitkeep":  "",
		"repo/ws/stages/01-a/references/y.txt": "y",
	})
	t.Setenv("HOME", filepath.Join(root, "home-elsewhere"))
	ws, err := Open(filepath.Join(root, "repo", "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Repository != filepath.Join(root, "repo") || !ws.RepositoryIsGit {
		t.Fatalf("repository = %q (git %v)", ws.Repository, ws.RepositoryIsGit)
	}
	base := filepath.Join(ws.Root, "stages", "01-a")
	tests := []struct {
		p      string
		shared bool
		name   string // InputRel of the result
		escape bool
	}{
		{"/_core/rules.md", true, "/_core/rules.md", false},
		{"../../../_core/rules.md", true, "/_core/rules.md", false},
		{"../../../workspaces-shared/glossary.md", true, "/workspaces-shared/glossary.md", false},
		{"/_config/voice.md", false, "_config/voice.md", false}, // the workspace's own comes first
		{"/_core/none.md", true, "/_core/none.md", false},       // missing, against the repository
		{"/.secrets/key.md", false, "", true},                   // never a hidden file
		{"../../../.secrets/key.md", false, "", true},
		{"../../../../above-the-repository/not-this.md", false, "", true},
		{"/above-the-repository/not-this.md", true, "", false}, // looked for in the repository only
	}
	for _, tt := range tests {
		abs, shared, err := ws.ResolveInput(base, tt.p)
		var esc *EscapeError
		switch {
		case tt.escape:
			if !errors.As(err, &esc) {
				t.Errorf("%s: %q, %v; want an escape", tt.p, abs, err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tt.p, err)
			continue
		}
		if shared != tt.shared || (tt.name != "" && ws.InputRel(abs) != tt.name) {
			t.Errorf("%s: shared %v, named %q; want %v, %q", tt.p, shared, ws.InputRel(abs), tt.shared, tt.name)
		}
	}
	abs, _, _ := ws.ResolveInput(base, "/_core/rules.md")
	if data, err := ws.ReadInput(abs); err != nil || string(data) != "rules" {
		t.Errorf("ReadInput = %q, %v", data, err)
	}
	var ro *ReadOnlyError
	if err := ws.InputRoot(abs).WriteFile("_core/rules.md", []byte("changed"), 0o644); !errors.As(err, &ro) {
		t.Errorf("writing a shared file: %v; want it refused", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "repo", "_core", "rules.md")); string(data) != "rules" {
		t.Errorf("the shared file changed: %q", data)
	}
}

// Outside git there is no repository: nothing above the workspace is
// read, however near, unless a person names the repository root; a
// repository root found by its .git is never the home folder or above it.
func TestRepositoryOutsideGit(t *testing.T) {
	root := sharedTree(t, map[string]string{"a/b/c/ws/CLAUDE.md": "# ws", "a/b/c/.git/HEAD": "ref"})
	t.Setenv("HOME", filepath.Join(root, "nobody"))
	ws := filepath.Join(root, "a", "b", "c", "ws")
	if top, above, from, err := repository(ws, ""); err != nil || top != filepath.Join(root, "a", "b", "c") || len(above) != 1 || from != RepositoryGit {
		t.Errorf("in git: %q, %v, %q, %v; want a/b/c found by its .git", top, above, from, err)
	}
	os.RemoveAll(filepath.Join(root, "a", "b", "c", ".git"))
	if top, above, from, err := repository(ws, ""); err != nil || top != "" || above != nil || from != "" {
		t.Errorf("outside git: %q, %v, %q, %v; want no repository", top, above, from, err)
	}
	if top, above, from, err := repository(ws, filepath.Join(root, "a")); err != nil || top != filepath.Join(root, "a") || len(above) != 3 || from != RepositoryNamed {
		t.Errorf("named: %q, %v, %q, %v; want a, three folders", top, above, from, err)
	}
	var re *RepositoryError
	if _, _, _, err := repository(ws, filepath.Join(root, "elsewhere")); err == nil {
		t.Error("a named root that does not exist: no error")
	}
	os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
	if _, _, _, err := repository(ws, filepath.Join(root, "elsewhere")); !errors.As(err, &re) {
		t.Errorf("a named root that does not hold the workspace: %v", err)
	}
	os.MkdirAll(filepath.Join(root, "a", ".git"), 0o755)
	t.Setenv("HOME", filepath.Join(root, "a"))
	if top, _, _, _ := repository(ws, ""); top != "" {
		t.Errorf("with HOME a git repository: %q; want none (never home itself)", top)
	}
}
