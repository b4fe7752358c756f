package workspace

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/config"
)

// IdentityFiles are the names layer 0 may have, in the order icm prefers
// them: the method's CLAUDE.md, the same in lower case, and AGENTS.md, the
// file other coding agents read.
var IdentityFiles = []string{IdentityFile, "claude.md", "AGENTS.md"}

// identityIn returns the name of the identity file dir holds, spelled as
// on disk, or "" when it has none. The folder is listed rather than each
// name stat'ed, so that on a file system that ignores case "claude.md" is
// reported as it is written.
func identityIn(dir string) string {
	entries, err := os.ReadDir(dir)
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
		if have[name] && isFile(filepath.Join(dir, name)) {
			return name
		}
	}
	return ""
}

// Where the stages folder was found.
const (
	StagesConfigured = "config"  // [workspace] stages in config.toml
	StagesDefault    = "default" // pipeline/ or stages/
	StagesFound      = "found"   // another top-level folder holding numbered stages
)

// stagesFolder picks the folder that holds the stages and says how: the
// one config.toml names, pipeline/ or stages/, or else the top-level
// folder holding the most numbered folders with a CONTEXT.md. It returns
// "" when there is none of these.
func stagesFolder(root string, cfg config.Config) (string, string) {
	if s := strings.Trim(filepath.ToSlash(filepath.Clean(cfg.Workspace.Stages)), "/"); cfg.Workspace.Stages != "" && s != "" {
		return s, StagesConfigured
	}
	for _, s := range stageDirs {
		if isDir(filepath.Join(root, s)) {
			return s, StagesDefault
		}
	}
	if s := findStagesFolder(root); s != "" {
		return s, StagesFound
	}
	return "", ""
}

// findStagesFolder looks through the top-level folders (not dot folders,
// not history/) for numbered folders holding a CONTEXT.md, and returns the
// one with the most of them (the first by name on a tie), or "".
func findStagesFolder(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	best, bestN := "", 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || name == HistoryDir || name == OutputDir {
			continue
		}
		if n := countStages(filepath.Join(root, name)); n > bestN {
			best, bestN = name, n
		}
	}
	return best
}

// countStages counts dir's numbered folders that hold a CONTEXT.md.
func countStages(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && stagePattern.MatchString(e.Name()) && isFile(filepath.Join(dir, e.Name(), ContractFile)) {
			n++
		}
	}
	return n
}

// nestedWorkspaces lists, for a folder with no stages of its own, the
// workspaces one or two levels below it (a repository holding several,
// such as the ICM template's workspaces/), relative and sorted.
func nestedWorkspaces(root string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			p := filepath.Join(dir, name)
			if IsRoot(p) {
				if rel, err := filepath.Rel(root, p); err == nil {
					out = append(out, filepath.ToSlash(rel))
				}
				continue
			}
			if depth < 2 {
				walk(p, depth+1)
			}
		}
	}
	walk(root, 1)
	sort.Strings(out)
	return out
}
