package runnable

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// maxDepth bounds how deep below a repository's root Workspaces looks.
const maxDepth = 6

// Workspaces lists the workspaces of a repository folder, relative to it
// ("." for the root), in path order: each folder that icm would take for
// a workspace (an identity file, or CONTEXT.md beside its stages; or a
// stages/ or pipeline/ folder of numbered stages) and that has stages. A
// workspace's own folders are not searched for more.
func Workspaces(repo string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(repo, p)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strings.Count(filepath.ToSlash(rel), "/") >= maxDepth {
			return filepath.SkipDir
		}
		if !workspace.IsRoot(p) && !hasStagesFolder(p) {
			return nil
		}
		ws, err := workspace.Open(p, nil)
		if err != nil || len(ws.Stages) == 0 {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return filepath.SkipDir
	})
	sort.Strings(out)
	return out, err
}

var stageName = regexp.MustCompile(`^\d+[a-z]?[-_].+`)

// hasStagesFolder reports whether dir holds stages/ or pipeline/ with a
// numbered folder that has a CONTEXT.md: a workspace whose root files are
// missing, which icm runs when it is named.
func hasStagesFolder(dir string) bool {
	for _, s := range []string{"stages", "pipeline"} {
		entries, err := os.ReadDir(filepath.Join(dir, s))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && stageName.MatchString(e.Name()) {
				if _, err := os.Stat(filepath.Join(dir, s, e.Name(), workspace.ContractFile)); err == nil {
					return true
				}
			}
		}
	}
	return false
}
