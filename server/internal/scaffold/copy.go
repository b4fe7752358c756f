package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// factoryFiles are the root files that configure a workspace.
var factoryFiles = append(append([]string{}, workspace.IdentityFiles...), workspace.RoutingFile, "config.toml", ".mcp.json", ".vscode/mcp.json")

// CopyFactory creates a workspace in dir (absent or empty) with src's
// factory: identity, routing, config.toml and MCP server files, _config/,
// and every stage folder's contract, references, schemas and scripts. It
// leaves out what runs produce (output/, .icm/, history/) and the working
// material (layer 4 inputs that no stage writes): each of those gets a
// short file saying what to put there, so the contracts still find their
// inputs and `icm check` passes.
func CopyFactory(src *workspace.Workspace, dir string) (*Result, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve %s: %w", dir, err)
	}
	if rel, err := filepath.Rel(src.Root, absDir); err == nil && !strings.HasPrefix(rel, "..") {
		return nil, fault.InvalidRequest(fmt.Sprintf("%s is inside the workspace it would copy (%s); choose a folder outside it", absDir, src.Root),
			"choose a folder outside the workspace")
	}
	root, err := prepareRoot(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Root: root}
	w := &writer{res: res}
	defer w.close()
	copyFile := func(rel string) error {
		data, err := src.Disk.ReadFile(rel)
		if err != nil {
			return fmt.Errorf("unable to read %s: %w", src.Abs(rel), err)
		}
		return w.write(rel, data)
	}
	done := map[string]bool{}
	for _, rel := range factoryFiles {
		if isFile(src, rel) {
			if err := copyFile(rel); err != nil {
				return nil, err
			}
			done[rel] = true
		}
	}
	if err := copyTree(src, "_config", nil, copyFile, done); err != nil {
		return nil, err
	}
	working, err := workingInputs(src)
	if err != nil {
		return nil, err
	}
	for _, st := range src.Stages {
		skip := func(rel string) bool {
			inStage := strings.TrimPrefix(rel, st.Rel+"/")
			first, _, _ := strings.Cut(inStage, "/")
			return first == workspace.OutputDir || first == state.StateDir || working[rel]
		}
		if err := copyTree(src, st.Rel, skip, copyFile, done); err != nil {
			return nil, err
		}
	}
	// Working material: a note in its place, wherever it lived.
	rels := make([]string, 0, len(working))
	for rel := range working {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		if done[rel] {
			continue
		}
		note, err := render("copied-input.md.tmpl", stageData{From: src.Root})
		if err != nil {
			return nil, err
		}
		if err := w.write(rel, note); err != nil {
			return nil, err
		}
		done[rel] = true
	}
	// Reference files that live outside _config/ and the stage folders.
	for _, rel := range referenceInputs(src) {
		if !done[rel] {
			if err := copyFile(rel); err != nil {
				return nil, err
			}
			done[rel] = true
		}
	}
	proposed := path.Join(src.StagesDir, "proposed")
	if isDir(src, proposed) {
		data, err := render("proposed.md.tmpl", stageData{})
		if err != nil {
			return nil, err
		}
		if err := w.write(path.Join(proposed, "README.md"), data); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// copyTree copies the regular files under rel (symlinks are left out: a
// copy must not reach outside the new workspace), except those skip names.
// The tree is walked through the source's Root: a folder rel that is a
// link out of the source is refused, naming the link, rather than copied
// from outside or left out without a word.
func copyTree(src *workspace.Workspace, rel string, skip func(string) bool, copyFile func(string) error, done map[string]bool) error {
	fi, err := src.Disk.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("unable to copy %s: %w", src.Abs(rel), err)
	case !fi.IsDir():
		return nil
	}
	return src.Disk.WalkDir(rel, func(r string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != nil && r != rel && skip(r) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || done[r] {
			return nil
		}
		done[r] = true
		return copyFile(r)
	})
}

// contracts parses every stage's contract.
func contracts(src *workspace.Workspace) map[*workspace.Stage]*contract.Contract {
	out := map[*workspace.Stage]*contract.Contract{}
	for _, st := range src.Stages {
		if data, err := src.Files.ReadFile(st.Contract); err == nil {
			out[st] = contract.ParseWith(st.Contract, data, contract.Options{Vars: src.Vars})
		}
	}
	return out
}

// workingInputs lists the workspace-relative files that are a run's
// material: layer 4 inputs and For each sources that exist and that no
// stage writes (those are results, left out with the rest of output/).
func workingInputs(src *workspace.Workspace) (map[string]bool, error) {
	out := map[string]bool{}
	add := func(st *workspace.Stage, p string) {
		abs, err := src.Resolve(st.Dir, p)
		if err != nil || !isFile(src, abs) {
			return
		}
		rel := src.Rel(abs)
		if produced(src, rel) || rel == src.Identity || rel == workspace.RoutingFile {
			return
		}
		out[rel] = true
	}
	for st, c := range contracts(src) {
		for _, in := range c.Inputs {
			if in.Layer == 4 && !in.NonFile && !in.Templated && in.Path != "" {
				add(st, in.Path)
			}
		}
		if c.ForEach != nil && c.ForEach.Path != "" {
			add(st, c.ForEach.Path)
		}
	}
	return out, nil
}

// referenceInputs lists the layer 3 files stages read, workspace-relative.
func referenceInputs(src *workspace.Workspace) []string {
	seen := map[string]bool{}
	var out []string
	for st, c := range contracts(src) {
		for _, in := range c.Inputs {
			if in.Layer != 3 || in.NonFile || in.Templated || in.Path == "" {
				continue
			}
			abs, err := src.Resolve(st.Dir, in.Path)
			if err != nil || !isFile(src, abs) {
				continue
			}
			if rel := src.Rel(abs); !seen[rel] && !produced(src, rel) {
				seen[rel] = true
				out = append(out, rel)
			}
		}
	}
	sort.Strings(out)
	return out
}

// produced reports whether rel lies in a stage's output/ folder.
func produced(src *workspace.Workspace, rel string) bool {
	st := src.StageOf(src.Abs(rel))
	return st != nil && strings.HasPrefix(rel, st.Rel+"/"+workspace.OutputDir+"/")
}

// isFile reports whether p (workspace-relative or absolute) is a regular
// file of src, looked up through its Root.
func isFile(src *workspace.Workspace, p string) bool {
	fi, err := src.Disk.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// isDir is isFile for a folder.
func isDir(src *workspace.Workspace, p string) bool {
	fi, err := src.Disk.Stat(p)
	return err == nil && fi.IsDir()
}
