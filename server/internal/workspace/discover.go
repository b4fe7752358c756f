package workspace

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// IdentityFiles are the names layer 0 may have, in the order icm prefers
// them: the method's CLAUDE.md, the same in lower case, and AGENTS.md, the
// file other coding agents read.
var IdentityFiles = []string{IdentityFile, "claude.md", "AGENTS.md"}

// identityIn returns the name of the identity file folder dir of r holds
// (dir is below r, "." for r itself), spelled as on disk, or "" when it
// has none. The folder is listed rather than each name stat'ed, so that on
// a file system that ignores case "claude.md" is reported as it is
// written. Everything goes through r: a link that leaves it is never
// followed (see fileThere).
func identityIn(r *Root, dir string) string {
	entries, err := r.ReadDir(dir)
	if err != nil {
		return ""
	}
	have := map[string]bool{}
	for _, e := range entries {
		if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
			have[e.Name()] = true
		}
	}
	for _, name := range IdentityFiles {
		if have[name] && fileThere(r, path.Join(dir, name)) {
			return name
		}
	}
	return ""
}

// fileThere reports whether rel (below r) is a file of the layout: a
// regular file, or a link to one inside r, or a link that leaves r. A
// link out counts as there and is never followed to see what it points
// at: reading it through r then says which link leads out, where looking
// it up by name would have judged it by a file outside.
func fileThere(r *Root, rel string) bool {
	fi, err := r.Stat(rel)
	if err == nil {
		return fi.Mode().IsRegular()
	}
	var esc *EscapeError
	return errors.As(err, &esc)
}

// dirThere is fileThere for a folder of the layout.
func dirThere(r *Root, rel string) bool {
	fi, err := r.Stat(rel)
	if err == nil {
		return fi.IsDir()
	}
	var esc *EscapeError
	return errors.As(err, &esc)
}

// isRootIn is IsRoot for folder dir below r.
func isRootIn(r *Root, dir string) bool {
	if identityIn(r, dir) != "" {
		return true
	}
	if !fileThere(r, path.Join(dir, RoutingFile)) {
		return false
	}
	for _, s := range stageDirs {
		if dirThere(r, path.Join(dir, s)) {
			return true
		}
	}
	return findStagesFolder(r, dir) != ""
}

// Where the stages folder was found.
const (
	StagesConfigured = "config"  // [workspace] stages in config.toml
	StagesDefault    = "default" // pipeline/ or stages/
	StagesRoot       = "root"    // numbered folders at the workspace root
	StagesFound      = "found"   // another top-level folder holding numbered stages
)

// findStagesFolder looks through the folders of dir below r (not dot
// folders, not history/) for numbered folders holding a CONTEXT.md, and
// returns the one with the most of them (the first by name on a tie), or
// "".
func findStagesFolder(r *Root, dir string) string {
	entries, err := r.ReadDir(dir)
	if err != nil {
		return ""
	}
	best, bestN := "", 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || name == HistoryDir || name == OutputDir {
			continue
		}
		if n := countStages(r, path.Join(dir, name)); n > bestN {
			best, bestN = name, n
		}
	}
	return best
}

// countStages counts the numbered folders of dir (below r) that hold a
// CONTEXT.md.
func countStages(r *Root, dir string) int {
	entries, err := r.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && stagePattern.MatchString(e.Name()) && fileThere(r, path.Join(dir, e.Name(), ContractFile)) {
			n++
		}
	}
	return n
}

// DiscoverDepth is how many folders below a folder workspaces are looked
// for: deep enough for a repository's workspaces/NAME/ or
// projects/GROUP/NAME/, shallow enough that opening a home folder does not
// walk it.
const DiscoverDepth = 4

// Below lists the workspaces inside dir (dir itself included when it is
// one), at most DiscoverDepth folders down, as absolute paths, sorted: the
// one walk every front end discovers workspaces with (the editor's
// folders, the workspace MCP server's). A workspace's own folders are not
// looked into (a stage is not a workspace of its own), nor hidden
// folders, node_modules, outputs or histories; links are never followed.
func Below(dir string) []string {
	r, err := OpenRoot(dir, RootOptions{ReadOnly: true})
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []string
	if isRootIn(r, ".") {
		return []string{dir}
	}
	for _, rel := range belowIn(r, ".", DiscoverDepth) {
		out = append(out, filepath.Join(dir, filepath.FromSlash(rel)))
	}
	return out
}

// nestedWorkspaces lists, for a folder with no stages of its own (r), the
// workspaces below it (a repository holding several, such as the ICM
// template's workspaces/), relative and sorted.
func nestedWorkspaces(r *Root) []string { return belowIn(r, ".", DiscoverDepth) }

// belowIn lists the workspaces below dir inside r, at most depth folders
// down, relative to r and sorted. Folders are listed through r, so links
// are not descended into.
func belowIn(r *Root, dir string, depth int) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := r.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" || name == OutputDir || name == HistoryDir {
				continue
			}
			p := path.Join(dir, name)
			if isRootIn(r, p) {
				out = append(out, p)
				continue
			}
			if depth > 1 {
				walk(p, depth-1)
			}
		}
	}
	walk(dir, depth)
	sort.Strings(out)
	return out
}
