// Package wstest builds workspaces for tests: from a txtar archive written
// inline, or as a copy of one of the shipped workspaces.
package wstest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/icm-tool/icm/server/internal/testutil/need"
)

// Write creates a workspace in a temporary folder from a txtar archive and
// returns its path. Symlinks are written as files named "NAME.symlink"
// whose content is the target.
func Write(t testing.TB, archive string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if ext := filepath.Ext(p); ext == ".symlink" {
			target := string(trimNewline(f.Data))
			if err := os.Symlink(target, p[:len(p)-len(ext)]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// RepoRoot returns the repository's root folder.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("unable to locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

// Shared returns the path of a folder of the shared material beside the
// repository (../shared: the corpus of other people's workspaces and the
// ICM template fixtures), which tests read in place and never copy into
// the project. elem is the path below it, such as "fixtures",
// "icm-template". A clone with nothing beside it (a user's) skips the
// test, saying so, or fails it under need.RequireAllEnv, as CI runs; a
// ../shared that lacks elem fails it.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p, err := sharedPath(RepoRoot(t), elem...)
	if errors.Is(err, errNoShared) {
		need.Missing(t, "../shared", err.Error())
	} else if err != nil {
		t.Fatal(err)
	}
	return p
}

// errNoShared marks a repository with no ../shared beside it.
var errNoShared = errors.New("a fresh clone has none: these tests read other people's workspaces there")

// sharedPath returns the absolute path of elem in the shared folder beside
// the repository at repo.
func sharedPath(repo string, elem ...string) (string, error) {
	top, err := filepath.Abs(filepath.Join(repo, "..", "shared"))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(top); err != nil {
		return "", fmt.Errorf("no folder %s beside the repository (%w)", top, errNoShared)
	}
	p := filepath.Join(append([]string{top}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the shared material beside the repository lacks %s: %w", p, err)
	}
	return p, nil
}

// TemplateFixtures returns the folder holding the four ICM-template
// workspaces other people wrote and the template's _core/, read in place:
// it sits in no git repository, so tests name it as the repository root.
func TemplateFixtures(t testing.TB) string {
	t.Helper()
	return Shared(t, "fixtures", "icm-template")
}

// Shipped returns the path of a shipped workspace (read only: use Copy to change it).
func Shipped(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "workspaces", name)
}

// Copy copies a shipped workspace (without run state and outputs) into a
// temporary folder and returns the copy's path.
func Copy(t testing.TB, name string) string {
	t.Helper()
	return CopyDir(t, Shipped(t, name))
}

// CopyDir copies src into a fresh temporary folder, leaving out run state
// (.icm/, history/) and anything in output/ folders but .gitkeep.
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (d.Name() == ".icm" || (d.Name() == "history" && filepath.Dir(rel) == ".")) {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if filepath.Base(filepath.Dir(p)) == "output" && d.Name() != ".gitkeep" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
