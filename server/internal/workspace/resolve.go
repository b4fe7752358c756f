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
	rel, err := filepath.Rel(root, joined)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", p, err)
	}
	real, err := walkWithin(root, rel, 0)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", p, err)
	}
	if !within(root, real) {
		return "", &EscapeError{Path: p, Reason: "a symlink on the way points outside the workspace (to " + real + ")"}
	}
	return joined, nil
}

// maxLinks bounds how many symlinks one path may pass through.
const maxLinks = 40

// walkWithin follows rel below root (a path with its own symlinks already
// resolved) one component at a time, resolving symlinks as it goes, and
// returns where it lands. It stops early, returning the target, as soon as
// a symlink points outside root. Components that do not exist yet are
// appended unchanged, so a file not yet written still has its folders
// checked. Only the components below root are examined, which keeps a
// check of a large workspace cheap.
func walkWithin(root, rel string, links int) (string, error) {
	cur := root
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		if part == "" || part == "." {
			continue
		}
		next := filepath.Join(cur, part)
		info, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links >= maxLinks {
			return "", fmt.Errorf("too many symlinks")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		target = filepath.Clean(target)
		if !within(root, target) {
			return target, nil
		}
		trel, err := filepath.Rel(root, target)
		if err != nil {
			return "", err
		}
		if cur, err = walkWithin(root, trel, links+1); err != nil {
			return "", err
		}
		if !within(root, cur) {
			return cur, nil
		}
	}
	return cur, nil
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
