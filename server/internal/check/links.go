package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/writeout"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// linkFindings reports the folders of the workspace that lead out of it
// through a symbolic link: the stages folder or a stage folder (left out
// of the stages, so nothing there is read), and the workspace's own state
// folders (.icm holds the run lock, history/ the traces with every prompt).
// Writes through them are refused; these findings say why before a run
// finds out.
func (c *checker) linkFindings() {
	at := c.anchor()
	for _, e := range c.ws.Escapes {
		c.add(contract.Finding{File: at, Severity: contract.Error, Code: contract.CodePathEscape,
			Message: fmt.Sprintf("%s: %s; icm reads nothing outside the workspace, so it is left out: move it into the workspace or remove the link", e.Path, e.Reason),
			Data:    map[string]string{"path": e.Path}})
	}
	for _, rel := range []string{state.StateDir, workspace.HistoryDir} {
		if e := linkOut(c.ws, rel); e != nil {
			c.add(contract.Finding{File: at, Severity: contract.Error, Code: contract.CodePathEscape,
				Message: fmt.Sprintf("%s: %s; icm keeps its run lock and traces inside the workspace and will not run here: make %s a folder of the workspace", rel, e.Reason, rel),
				Data:    map[string]string{"path": rel}})
		}
	}
}

// stageLayout reports a stage's output and state folders, and its declared
// outputs, that lead out of the workspace, and outputs that are not
// regular files. Each is an error on the contract: the stage cannot run,
// and what sits there is not its output.
func (c *checker) stageLayout(st *workspace.Stage, k *contract.Contract) {
	c.modelOutput(st, k)
	for _, dir := range []string{workspace.OutputDir, state.StateDir} {
		rel := path.Join(st.Rel, dir)
		if e := linkOut(c.ws, rel); e != nil {
			c.add(contract.Finding{File: st.Contract, Range: k.TitleRange, Severity: contract.Error, Code: contract.CodePathEscape,
				Message: fmt.Sprintf("%s: %s; icm writes nothing outside the workspace, so the stage cannot run: make %s/ a folder of the stage", rel, e.Reason, dir),
				Data:    map[string]string{"path": rel}})
			return // what is under it is outside too
		}
	}
	scan := false
	for _, o := range k.Outputs {
		if o.Templated || o.Dir {
			scan = true
			continue
		}
		c.output(st, path.Join(st.Rel, o.Path), o.PathRange)
	}
	if scan {
		// Whatever sits in output/ is taken as the stage's output: a link
		// in it that leads out is not.
		root := path.Join(st.Rel, workspace.OutputDir)
		_ = c.ws.Disk.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !d.Type().IsRegular() {
				c.output(st, p, k.TitleRange)
			}
			return nil
		})
	}
}

// output checks one output file, if it is there.
func (c *checker) output(st *workspace.Stage, rel string, at document.Range) {
	if e := linkOut(c.ws, rel); e != nil {
		c.add(contract.Finding{File: st.Contract, Range: at, Severity: contract.Error, Code: contract.CodePathEscape,
			Message: fmt.Sprintf("%s: %s; it is not this stage's output and icm will not read, approve or export it: remove the link", rel, e.Reason),
			Data:    map[string]string{"path": rel}})
		return
	}
	info, err := c.ws.Disk.Stat(rel)
	if err != nil || info.Mode().IsRegular() {
		return
	}
	what := "a folder"
	if !info.IsDir() {
		what = workspace.SpecialKind(info.Mode())
	}
	c.add(contract.Finding{File: st.Contract, Range: at, Severity: contract.Error, Code: contract.CodeFileRefused,
		Message: fmt.Sprintf("%s is %s where the stage writes a file: remove it", rel, what),
		Data:    map[string]string{"path": rel}})
}

// linkOut returns why the workspace path rel leads outside through a
// symbolic link, or nil when it stays inside (or does not exist).
func linkOut(ws *workspace.Workspace, rel string) *workspace.EscapeError {
	_, err := ws.ResolveBelow(rel)
	var e *workspace.EscapeError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// escapeMessage says why a path of a contract cannot be resolved.
func escapeMessage(err error) string {
	var loop *workspace.LoopError
	if errors.As(err, &loop) {
		return err.Error() + ": shorten the chain of links"
	}
	var esc *workspace.EscapeError
	if errors.As(err, &esc) && (esc.Never || esc.NoRepository) {
		return err.Error() // its reason says what icm reads
	}
	return err.Error() + "; icm reads nothing outside the workspace"
}

// modelOutput notes a model stage that names outputs but none icm run can
// write the answer to (a For each stage whose every output holds a
// placeholder or is a folder: each item's answer goes to one file): the
// notation is valid, so it is a note, but without it the first thing a
// person learns is a failed run.
func (c *checker) modelOutput(st *workspace.Stage, k *contract.Contract) {
	if k.Script != nil || len(k.Outputs) == 0 {
		return
	}
	concrete := false
	for _, o := range k.Outputs {
		if names := contract.SetupVarNames(o.Path); len(names) > 0 {
			// Concrete once the variables are set: their note says so.
			c.unsetVars(st, o.PathRange, o.Path, names)
			concrete = concrete || !o.Dir && placeholder(o.Path) == len(names)
		}
	}
	if _, ok := k.ModelOutput(); ok || concrete || writeout.Needed(k) {
		// The model names what it writes through the write tool.
		return
	}
	c.add(contract.Finding{File: st.Contract, Range: k.Outputs[0].PathRange, Severity: contract.Info, Code: contract.CodeNoModelOutput,
		Message: "every output of this stage holds a run-time name (such as [slug]) or names a folder, so icm run has no one file to write its answer to"})
}

// placeholder counts the placeholders of a path.
func placeholder(p string) int {
	return strings.Count(contract.PlaceholderGlob(p), "*") - strings.Count(p, "*")
}

// escapeSeverity is how sure a path's refusal is: an error, but for a
// path that climbs above a workspace in no git repository with no root
// named, where what it leads to is not known (a note: a run refuses it
// with the same words).
func escapeSeverity(err error) contract.Severity {
	var esc *workspace.EscapeError
	if errors.As(err, &esc) && esc.NoRepository {
		return contract.Info
	}
	return contract.Error
}
