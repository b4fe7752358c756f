package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestCopyFactoryRefusesAFolderLinkedOut: the source's _config/ links to
// a folder outside it. The copy walks the source through its Root, so it
// stops with an error naming the link instead of leaving _config/ out
// without a word, and nothing from outside reaches the new workspace.
func TestCopyFactoryRefusesAFolderLinkedOut(t *testing.T) {
	src := wstest.Copy(t, "course-research")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "voice.md"), []byte("from outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(src, "_config")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(src, "_config")); err != nil {
		t.Fatal(err)
	}
	sws, err := workspace.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sws.Close()
	dst := filepath.Join(t.TempDir(), "new")
	_, err = CopyFactory(sws, dst)
	var esc *workspace.EscapeError
	if !errors.As(err, &esc) || !strings.Contains(err.Error(), "_config") {
		t.Errorf("CopyFactory: %v, want the link _config refused by name", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "_config", "voice.md")); err == nil {
		t.Error("a file from outside the source was copied into the new workspace")
	}
}
