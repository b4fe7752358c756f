package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The four ICM-template workspaces other people wrote open with no error
// and no warning, and icm probe loads every input of theirs that exists.
func TestTemplateWorkspacesLoadEveryInput(t *testing.T) {
	// Read in place; the whole folder stands for the repository root
	// holding them and the template's _core/.
	root := wstest.TemplateFixtures(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !workspace.IsRoot(dir) {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) { templateWorkspace(t, dir) })
	}
	if n != 4 {
		t.Errorf("%d workspaces, want 4", n)
	}
}

func templateWorkspace(t *testing.T, dir string) {
	repo := filepath.Dir(dir)
	rep, _ := runCheckJSON(t, dir, "--repo", repo)
	if len(rep.Stages) < 3 {
		t.Errorf("%d stages, want the workspace's stages/ (3 or more)", len(rep.Stages))
	}
	for _, f := range rep.Findings {
		if f.Severity.String() == "error" || f.Severity.String() == "warning" {
			t.Errorf("%s:%d: %s: %s [%s]", relSlash(dir, f.File), f.Line, f.Severity, f.Message, f.Code)
		}
	}
	inputs := 0
	for _, st := range rep.Stages {
		out, errOut, code := runICM(t, "probe", st.Name, "-w", dir, "--json", "--repo", repo)
		if code != 0 {
			t.Errorf("probe %s: exit %d: %s", st.Name, code, errOut)
			continue
		}
		var ctx assemble.Context
		if err := json.Unmarshal([]byte(out), &ctx); err != nil {
			t.Fatal(err)
		}
		loaded := map[string]bool{}
		for _, p := range ctx.Parts {
			if (p.Note() == "" || p.Shared) && !p.Missing && p.Skipped == "" && p.Bytes > 0 {
				loaded[p.Path] = true
			}
		}
		stageDir := filepath.Dir(st.Contract.File)
		for _, in := range st.Contract.Inputs {
			if in.NonFile || in.Templated || in.Glob || in.Path == "" {
				continue // shown, or nothing written yet that fits
			}
			for _, rel := range existing(t, dir, stageDir, in.Path) {
				inputs++
				if !loaded[rel] {
					t.Errorf("%s: input %s exists but probe did not load it (parts: %v)", st.Name, rel, partNotes(ctx.Parts))
				}
			}
		}
	}
	if inputs == 0 {
		t.Error("no input of this workspace exists; the fixture is not what it was")
	}
}

// existing lists the files an input path names that exist on disk (the
// file, or the files in a folder), as probe names them: relative to the
// workspace, or for a path with a leading "/" (the template's repository
// root, here the folder holding the workspaces) that path.
func existing(t *testing.T, ws, stageDir, p string) []string {
	t.Helper()
	abs, name := filepath.Join(stageDir, filepath.FromSlash(p)), func(f string) string { return relSlash(ws, f) }
	if strings.HasPrefix(p, "/") {
		repo := filepath.Dir(ws)
		abs, name = filepath.Join(repo, filepath.FromSlash(p)), func(f string) string { return "/" + relSlash(repo, f) }
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil
	}
	if !info.IsDir() {
		return []string{name(abs)}
	}
	var out []string
	_ = filepath.WalkDir(abs, func(f string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, name(f))
		}
		return nil
	})
	return out
}

func partNotes(parts []assemble.Part) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Label+" "+p.Note())
	}
	return out
}
