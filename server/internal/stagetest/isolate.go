package stagetest

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
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

// Provenance values of an input in a result.
const (
	FromCase      = "case"
	FromWorkspace = "workspace"
)

// isolate makes the copy a case runs in (see copy.go): the workspace in
// a new private folder standing for its repository, with the shared
// files its stages read, then each stand-in written over the file it
// replaces. It returns the copy (opened), the folder that holds it and
// where each file the stage reads came from; the caller closes the copy
// and removes the folder.
func isolate(src *workspace.Workspace, st *workspace.Stage, con *contract.Contract, c *testcase.Case) (*workspace.Workspace, string, map[string]string, error) {
	top, dir, err := layOut(src)
	if err != nil {
		return nil, "", nil, err
	}
	var cp *workspace.Workspace
	fail := func(err error) (*workspace.Workspace, string, map[string]string, error) {
		if cp != nil {
			cp.Close()
		}
		os.RemoveAll(top)
		return nil, "", nil, err
	}
	if err := copyWorkspace(src, dir); err != nil {
		return fail(err)
	}
	if err := copyShared(src, top); err != nil {
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
	return cp, top, from, nil
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

// Fault is a test case that cannot run as written, with its fix.
func (e *MissingInputError) Fault() *fault.Error {
	return fault.Failed(e.Error(), e.Hint(), nil).In(e.Stage)
}
