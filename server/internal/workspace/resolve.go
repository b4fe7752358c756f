package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EscapeError says a path would leave the workspace.
type EscapeError struct {
	Path   string
	Reason string
}

func (e *EscapeError) Error() string {
	return fmt.Sprintf("path %s leaves the workspace: %s", e.Path, e.Reason)
}

// Resolve turns p, written relative to the folder base (inside the
// workspace), into an absolute path. It refuses absolute paths, paths
// whose ".." climbs out of the workspace, and paths that reach outside
// through a symlink; nothing outside the workspace is ever returned.
func (w *Workspace) Resolve(base, p string) (string, error) {
	return resolveIn(w.Root, base, p)
}

func resolveIn(root, base, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasDrive(p) {
		return "", &EscapeError{Path: p, Reason: "absolute paths are not allowed; write it relative to the contract"}
	}
	joined := filepath.Join(base, filepath.FromSlash(p))
	if !within(root, joined) {
		return "", &EscapeError{Path: p, Reason: "it climbs above the workspace folder with .."}
	}
	real, err := evalExisting(joined)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", p, err)
	}
	if !within(root, real) {
		return "", &EscapeError{Path: p, Reason: "a symlink on the way points outside the workspace (to " + real + ")"}
	}
	return joined, nil
}

// evalExisting resolves symlinks in the longest existing prefix of p and
// appends the rest unchanged, so a path to a file not yet written still
// gets its folders checked.
func evalExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A dangling symlink: resolve it by hand, one level.
			if target, lerr := os.Readlink(cur); lerr == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return filepath.Join(target, rest), nil
			}
			return "", err
		}
		if target, lerr := os.Readlink(cur); lerr == nil {
			// cur is a symlink whose target does not exist.
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return filepath.Join(filepath.Clean(target), rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Join(cur, rest), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}
