package stagetest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// skipDir says which folders a test copy leaves out: version control and
// dependencies, the history (runs, kept versions, test results), run
// state (.icm/: records, approvals, For each checkpoints, locks) and the
// stages' own test cases. The copy so starts with no approvals and no
// history, and nothing a case run does can reach the real ones.
func skipDir(rel string, name string, stageTests map[string]bool) bool {
	switch {
	case rel == workspace.HistoryDir, name == ".git", name == "node_modules", name == state.StateDir:
		return true
	}
	return stageTests[rel]
}

// copyWorkspace copies the regular files of src into dst (which must
// exist), leaving out what skipDir names. Symlinks are left out too: a
// copy must not reach outside itself. Files are read through the
// workspace's Root and streamed, so a file swapped for a link meanwhile
// is refused and a large one costs no memory.
func copyWorkspace(src *workspace.Workspace, dst string) error {
	stageTests := map[string]bool{}
	for _, st := range src.Stages {
		stageTests[st.Rel+"/"+testcase.Dir] = true
	}
	return src.Disk.WalkDir(".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if d.IsDir() {
			if skipDir(rel, d.Name(), stageTests) {
				return fs.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if err := copyFile(src.Disk, rel, target); err != nil {
			return fmt.Errorf("unable to copy %s into the test copy: %w", rel, err)
		}
		return nil
	})
}

// copyFile streams the regular file rel of root to target.
func copyFile(root *workspace.Root, rel, target string) error {
	in, _, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Provenance values of an input in a result.
const (
	FromCase      = "case"
	FromWorkspace = "workspace"
)

// isolate makes the copy a case runs in: the workspace copied into a new
// temporary folder, then each stand-in written over the file it
// replaces. It returns the copy (opened) and where each file the stage
// reads came from; the caller closes the copy and removes its folder.
func isolate(src *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *testcase.Case) (*workspace.Workspace, map[string]string, error) {
	dir, err := os.MkdirTemp("", "icm-test-*")
	if err != nil {
		return nil, nil, fmt.Errorf("unable to make a folder for the test copy: %w", err)
	}
	var cp *workspace.Workspace
	fail := func(err error) (*workspace.Workspace, map[string]string, error) {
		if cp != nil {
			cp.Close()
		}
		os.RemoveAll(dir)
		return nil, nil, err
	}
	if err := copyWorkspace(src, dir); err != nil {
		return fail(err)
	}
	if cp, err = workspace.Open(dir, nil); err != nil {
		return fail(fmt.Errorf("unable to open the test copy: %w", err))
	}
	cst, err := cp.Stage(st.Name)
	if err != nil {
		return fail(err)
	}
	from := map[string]string{}
	for _, in := range c.Inputs {
		data, err := testcase.Read(src, st, c, in)
		if err != nil {
			return fail(fmt.Errorf("%s: the stand-in for %s: %w", c.ID, in.Target, err))
		}
		abs, err := cp.Resolve(cst.Dir, in.Target)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", c.ID, err))
		}
		if err := cp.Disk.WriteFile(abs, data, 0o644); err != nil {
			return fail(fmt.Errorf("unable to write the stand-in for %s: %w", in.Target, err))
		}
		from[cp.Rel(abs)] = FromCase
	}
	var missing []string
	for abs, in := range testcase.Reads(cp, cst, con) {
		rel := cp.Rel(abs)
		if from[rel] != "" {
			continue
		}
		if _, err := cp.Disk.Stat(abs); err != nil {
			if in.Layer == contract.LayerWorking {
				missing = append(missing, in.Path)
			}
			continue
		}
		from[rel] = FromWorkspace
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fail(&MissingInputError{Case: c.ID, Stage: st.Name, Paths: missing})
	}
	return cp, from, nil
}

// MissingInputError says a stage would run without a working input: the
// workspace does not have it and the case gives no stand-in.
type MissingInputError struct {
	Case, Stage string
	Paths       []string
}

func (e *MissingInputError) Error() string {
	return fmt.Sprintf("%s reads %s, which the workspace does not have and the case gives no stand-in for", e.Stage, strings.Join(e.Paths, ", "))
}

// Hint says what to do.
func (e *MissingInputError) Hint() string {
	return fmt.Sprintf("add `- %s <- FILE` under ## Inputs of %s (FILE relative to the case)", e.Paths[0], e.Case)
}
