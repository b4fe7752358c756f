package cli

import (
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// openWorkspace opens the workspace named by -w, or the one around the
// current folder.
func openWorkspace(env *Env, g *globalFlags) (*workspace.Workspace, error) {
	cwd, err := env.Getwd()
	if err != nil {
		return nil, err
	}
	dir := g.workspace
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	return workspace.LoadWith(dir, cwd, workspace.Options{Repository: repoRoot(env, g, cwd)})
}

// repoRoot is the repository root a person names: --repo DIR, else
// ICM_REPO, relative to the current folder; "" when neither is given.
// A workspace's own config.toml never names it.
func repoRoot(env *Env, g *globalFlags, cwd string) string {
	dir := g.repo
	if dir == "" && env.Getenv != nil {
		dir = env.Getenv("ICM_REPO")
	}
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	return dir
}

// displayPath shows an absolute path relative to the current folder when
// it is below it, the way compilers print file names.
func displayPath(env *Env, abs string) string {
	cwd, err := env.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs
	}
	return rel
}
