package testcase

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Refs lists the cases of a stage, by name: every .md file directly in
// tests/ but README.md, and every subfolder holding a CASE.md. Other
// subfolders hold shared stand-ins and are not cases. The folders are
// listed through the workspace's Root: a tests/ that links out of the
// workspace has no cases.
func Refs(ws *workspace.Workspace, st *workspace.Stage) []Ref {
	dir := filepath.Join(st.Dir, Dir)
	entries, err := ws.Disk.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Ref
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			if f := caseFileIn(ws.Disk, filepath.Join(dir, name)); f != "" {
				out = append(out, Ref{Stage: st.Name, Name: name, File: f, Dir: filepath.Join(dir, name), Folder: true})
			}
		case e.Type().IsRegular() && strings.EqualFold(filepath.Ext(name), ".md") && !strings.EqualFold(name, "README.md"):
			out = append(out, Ref{Stage: st.Name, Name: strings.TrimSuffix(name, filepath.Ext(name)), File: filepath.Join(dir, name), Dir: dir})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// caseFileIn returns the CASE.md of a case folder (any letter case), or "".
func caseFileIn(disk *workspace.Root, dir string) string {
	entries, err := disk.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.EqualFold(e.Name(), FolderFile) {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// IsCaseFile reports whether abs is a case file of some stage of ws, and
// which stage.
func IsCaseFile(ws *workspace.Workspace, abs string) (*workspace.Stage, bool) {
	st := ws.StageOf(abs)
	if st == nil || !strings.EqualFold(filepath.Ext(abs), ".md") {
		return nil, false
	}
	rel, err := filepath.Rel(filepath.Join(st.Dir, Dir), abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case len(parts) == 1:
		return st, !strings.EqualFold(parts[0], "README.md")
	case len(parts) == 2:
		return st, strings.EqualFold(parts[1], FolderFile)
	}
	return nil, false
}

// RefOf places a case file (IsCaseFile must hold).
func RefOf(st *workspace.Stage, abs string) Ref {
	if strings.EqualFold(filepath.Base(abs), FolderFile) {
		dir := filepath.Dir(abs)
		return Ref{Stage: st.Name, Name: filepath.Base(dir), File: abs, Dir: dir, Folder: true}
	}
	return Ref{Stage: st.Name, Name: strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs)), File: abs, Dir: filepath.Dir(abs)}
}

// Load reads and parses every case of a stage through ws.Files (so the
// editor's unsaved buffers count). A case whose name another case of the
// stage already uses gets an error finding.
func Load(ws *workspace.Workspace, st *workspace.Stage) []*Case {
	var out []*Case
	seen := map[string]string{}
	for _, ref := range Refs(ws, st) {
		src, err := ws.Files.ReadFile(ref.File)
		if err != nil {
			continue
		}
		c := Parse(ref, src)
		if prev, ok := seen[ref.Name]; ok {
			c.Findings = append(c.Findings, contract.Finding{File: c.File, Range: c.TitleRange, Severity: contract.Error, Code: CodeDuplicateSect,
				Message: fmt.Sprintf("another case of %s is also named %q (%s); rename one", st.Name, ref.Name, ws.Rel(prev))})
		}
		seen[ref.Name] = ref.File
		out = append(out, c)
	}
	return out
}
