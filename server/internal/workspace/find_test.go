package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// One resolver: a path is looked for in the stage folder, the workspace
// root, the stages folder, and for a leading "/" the repository; the base
// that found it is said.
func TestFindInputTriesEachBaseInOrder(t *testing.T) {
	root := sharedTree(t, map[string]string{
		"repo/.git/HEAD":                           "ref",
		"repo/_core/rules.md":                      "rules",
		"repo/ws/CLAUDE.md":                        "# ws",
		"repo/ws/_config/voice.md":                 "voice",
		"repo/ws/stages/01-a/CONTEXT.md":           "# a",
		"repo/ws/stages/01-a/notes.md":             "stage notes",
		"repo/ws/notes.md":                         "root notes",
		"repo/ws/stages/00-intake/output/in.md":    "intake",
		"repo/ws/stages/00-intake/CONTEXT.md":      "# intake",
		"repo/ws/stages/01-a/_config/only-here.md": "here",
	})
	t.Setenv("HOME", filepath.Join(root, "home-elsewhere"))
	ws, err := Open(filepath.Join(root, "repo", "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dir := filepath.Join(ws.Root, "stages", "01-a")
	tests := []struct {
		p      string
		base   Base
		name   string
		exists bool
		tried  int
	}{
		{"notes.md", BaseStage, "stages/01-a/notes.md", true, 1},         // the stage's own comes first
		{"_config/voice.md", BaseWorkspace, "_config/voice.md", true, 2}, // written from the workspace root
		{"_config/only-here.md", BaseStage, "stages/01-a/_config/only-here.md", true, 1},
		{"stages/00-intake/output/in.md", BaseWorkspace, "stages/00-intake/output/in.md", true, 2},
		{"00-intake/output/in.md", BaseStages, "stages/00-intake/output/in.md", true, 3}, // from the stages folder
		{"../00-intake/output/in.md", BaseStage, "stages/00-intake/output/in.md", true, 1},
		{"/_core/rules.md", BaseRepository, "/_core/rules.md", true, 1},
		{"nowhere.md", BaseStage, "stages/01-a/nowhere.md", false, 3}, // missing: the stage folder, all three tried
		{"../02-b/output/x.md", BaseStage, "stages/02-b/output/x.md", false, 1},
	}
	for _, tt := range tests {
		f, tried, err := ws.FindInput(dir, tt.p)
		if err != nil {
			t.Errorf("%s: %v", tt.p, err)
			continue
		}
		if f.Base != tt.base || ws.InputRel(f.Abs) != tt.name || f.Exists != tt.exists || len(tried) != tt.tried {
			t.Errorf("%s: %s %q exists %v, %d tried; want %s %q %v, %d", tt.p, f.Base, ws.InputRel(f.Abs), f.Exists, len(tried), tt.base, tt.name, tt.exists, tt.tried)
		}
	}
}

// Issue 21, item 3: outside git, a shared "/…" or "../" input is never
// read from the folders above the workspace (a sibling project's file),
// unless a person names the repository root.
func TestOutsideGitNothingAboveTheWorkspaceIsRead(t *testing.T) {
	root := sharedTree(t, map[string]string{
		"src/other/secrets.yaml":        "token: x",
		"src/ws/CLAUDE.md":              "# ws",
		"src/ws/stages/01-a/CONTEXT.md": "# a",
		"src/ws/secrets.yaml":           "the workspace's own",
	})
	t.Setenv("HOME", filepath.Join(root, "home-elsewhere"))
	wsDir := filepath.Join(root, "src", "ws")
	ws, err := Open(wsDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Repository != "" || ws.RepositoryFrom != "" {
		t.Fatalf("outside git the repository is %q (%s); want none", ws.Repository, ws.RepositoryFrom)
	}
	dir := filepath.Join(wsDir, "stages", "01-a")
	f, _, err := ws.FindInput(dir, "/other/secrets.yaml")
	if err != nil || f.Shared || f.Exists || ws.InputRel(f.Abs) != "other/secrets.yaml" {
		t.Errorf("/other/secrets.yaml: %+v, %v; want it looked for in the workspace only", f, err)
	}
	if f, _, err := ws.FindInput(dir, "/secrets.yaml"); err != nil || !f.Exists || f.Shared {
		t.Errorf("/secrets.yaml: %+v, %v; want the workspace's own", f, err)
	}
	var esc *EscapeError
	if _, _, err := ws.FindInput(dir, "../../../other/secrets.yaml"); !errors.As(err, &esc) {
		t.Errorf("../../../other/secrets.yaml: %v; want an escape", err)
	}
	named, err := OpenWith(wsDir, Options{Repository: filepath.Join(root, "src")})
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	if f, _, err := named.FindInput(dir, "/other/secrets.yaml"); err != nil || !f.Exists || !f.Shared {
		t.Errorf("with the repository named: %+v, %v; want it read, shared", f, err)
	}
	if _, err := OpenWith(wsDir, Options{Repository: filepath.Join(root, "src", "other")}); err == nil {
		t.Error("a named repository root that does not hold the workspace opened")
	}
}

// Issue 21, item 4: the dot-file rule and containment apply to where a
// link leads, and nothing under .git is read, inside the workspace or out.
func TestNothingUnderGitIsRead(t *testing.T) {
	root := sharedTree(t, map[string]string{
		"repo/.git/config":                "[remote] url = https://token@example.com",
		"repo/CLAUDE.md":                  "# ws at the repository root",
		"repo/stages/01-a/CONTEXT.md":     "# a",
		"outer/.git/config":               "[remote] url = https://token@example.com",
		"outer/ws/CLAUDE.md":              "# ws below the repository root",
		"outer/ws/stages/01-a/CONTEXT.md": "# a",
	})
	t.Setenv("HOME", filepath.Join(root, "home-elsewhere"))
	if err := os.Symlink(".git", filepath.Join(root, "repo", "gl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(root, "outer", "gl")); err != nil {
		t.Fatal(err)
	}
	var esc *EscapeError
	atRoot, err := Open(filepath.Join(root, "repo"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer atRoot.Close()
	dir := filepath.Join(atRoot.Root, "stages", "01-a")
	for _, p := range []string{"../../.git/config", "/.git/config", "/gl/config", "../../gl/config"} {
		if f, _, err := atRoot.FindInput(dir, p); !errors.As(err, &esc) {
			t.Errorf("workspace at the repository root, %s: %+v, %v; want it refused", p, f, err)
		}
	}
	below, err := Open(filepath.Join(root, "outer", "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer below.Close()
	dir = filepath.Join(below.Root, "stages", "01-a")
	for _, p := range []string{"/gl/config", "../../../gl/config", "/.git/config", "../../../.git/config"} {
		if f, _, err := below.FindInput(dir, p); !errors.As(err, &esc) {
			t.Errorf("shared, %s: %+v, %v; want it refused", p, f, err)
		}
	}
}
