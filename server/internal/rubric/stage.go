package rubric

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Folder and file names of a stage's rubrics.
const (
	Dir = "references"
	// ReviewFile applies to every output of the stage.
	ReviewFile = "review-rubric.md"
	// Suffix ends a rubric for one output: <output-stem>-rubric.md.
	Suffix = "-rubric.md"
)

// File is one rubric file of a stage and the outputs it applies to.
type File struct {
	// Rel is workspace-relative; Abs the file on disk.
	Rel, Abs string
	// Outputs are the workspace-relative outputs it checks.
	Outputs []string
}

// Files finds the rubrics of a stage for its current outputs
// (workspace-relative): references/review-rubric.md for every one, and
// references/<stem>-rubric.md for the outputs whose file stem, or whose
// declared output's stem ("[slug]-plan" for output/[slug]-plan.md), is
// <stem>. Names are matched case-insensitively. A stage without a
// references folder has none.
func Files(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, outputs []string) ([]File, error) {
	dir := filepath.Join(st.Dir, Dir)
	entries, err := ws.Disk.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to list %s: %w", ws.Rel(dir), err)
	}
	var out []File
	for _, e := range entries {
		name := e.Name()
		low := strings.ToLower(name)
		if e.IsDir() || !strings.HasSuffix(low, Suffix) {
			continue
		}
		f := File{Rel: path.Join(st.Rel, Dir, name), Abs: filepath.Join(dir, name)}
		stem := strings.TrimSuffix(low, Suffix)
		for _, o := range outputs {
			if low == ReviewFile || stemsOf(st, c, o)[stem] {
				f.Outputs = append(f.Outputs, o)
			}
		}
		if len(f.Outputs) > 0 {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// stemsOf is the lower-cased stems an output answers to: its own, and its
// declared output's when that holds a placeholder or is a folder.
func stemsOf(st *workspace.Stage, c *contract.Contract, rel string) map[string]bool {
	stem := func(p string) string {
		b := strings.ToLower(path.Base(p))
		return strings.TrimSuffix(b, path.Ext(b))
	}
	set := map[string]bool{stem(rel): true}
	if c == nil {
		return set
	}
	inStage := strings.TrimPrefix(rel, st.Rel+"/")
	for _, o := range c.Outputs {
		switch {
		case o.Dir && strings.HasPrefix(inStage, o.Path+"/"):
			set[stem(o.Path)] = true
		case o.Templated:
			if ok, _ := path.Match(contract.PlaceholderGlob(o.Path), inStage); ok {
				set[stem(o.Path)] = true
			}
		}
	}
	return set
}

// Run checks a stage's current outputs (workspace-relative) against its
// rubrics. A rubric that cannot be read, or a line of it icm cannot use,
// is reported as a note naming the line; an output that cannot be read
// fails every check of its rubrics. nil when the stage has no rubric.
func Run(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract, outputs []string) []state.RubricCheck {
	files, err := Files(ws, st, c, outputs)
	if err != nil {
		return []state.RubricCheck{{Rubric: path.Join(st.Rel, Dir), Kind: KindNote, Note: true, OK: true, Message: err.Error()}}
	}
	var out []state.RubricCheck
	for _, f := range files {
		src, err := ws.Files.ReadFile(f.Abs)
		if err != nil {
			out = append(out, state.RubricCheck{Rubric: f.Rel, Kind: KindNote, Note: true, OK: true,
				Message: fmt.Sprintf("the rubric cannot be read: %v", err)})
			continue
		}
		r, problems := Parse(src)
		for _, p := range problems {
			out = append(out, state.RubricCheck{Rubric: f.Rel, Kind: KindNote, Note: true, OK: true,
				Message: fmt.Sprintf("%s:%d: %s", f.Rel, p.Line, p.Message)})
		}
		for _, o := range f.Outputs {
			data, err := ws.Files.ReadFile(ws.Abs(o))
			if err != nil {
				for _, c := range Check(r, f.Rel, o, nil) {
					if !c.Note {
						c.OK, c.Message = false, "the output cannot be read: "+err.Error()
					}
					out = append(out, c)
				}
				continue
			}
			out = append(out, Check(r, f.Rel, o, data)...)
		}
	}
	return out
}
