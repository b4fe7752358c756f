package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// snapshot is every file and folder below dir with its size and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%s %s %d", info.Mode(), info.ModTime(), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// check, status and probe read the shared template workspaces and corpus
// in place and write nothing there: no state, no history, no output.
func TestSharedFoldersAreReadInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every shared workspace")
	}
	shared := wstest.Shared(t)
	var dirs []string
	for _, top := range []string{"fixtures/icm-template", "corpus"} {
		_ = filepath.WalkDir(filepath.Join(shared, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if d.Name() == "stages" || d.Name() == "pipeline" {
				return fs.SkipDir
			}
			if workspace.IsRoot(p) {
				if _, err := os.Stat(filepath.Join(p, "stages")); err == nil {
					dirs = append(dirs, p)
					return fs.SkipDir
				}
			}
			return nil
		})
	}
	if len(dirs) < 20 {
		t.Fatalf("found %d shared workspaces with stages, want the template's and the corpus's", len(dirs))
	}
	before := snapshot(t, shared)
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1")
	for _, dir := range dirs {
		rep, _ := runCheckJSON(t, dir)
		if _, errOut, code := runICM(t, "status", "-w", dir); code != 0 {
			t.Errorf("status %s: %d %s", dir, code, errOut)
		}
		for _, st := range rep.Stages {
			if _, errOut, code := runICM(t, "probe", st.Name, "-w", dir); code > 1 {
				t.Errorf("probe %s %s: %d %s", dir, st.Name, code, errOut)
			}
		}
	}
	after := snapshot(t, shared)
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("created in ../shared: %s", strings.TrimPrefix(p, shared))
		}
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("changed or removed in ../shared: %s", strings.TrimPrefix(p, shared))
		}
	}
}
