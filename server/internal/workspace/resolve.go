package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Resolve turns p, written relative to the folder base (inside the
// workspace), into an absolute path. It refuses absolute paths, paths
// whose ".." climbs out of the workspace, and paths that reach outside
// through a symlink (naming the link); nothing outside the workspace is
// ever returned. The path returned is the one written, not the one the
// links lead to, so a person recognises it; opening it goes through the
// workspace's Root all the same, which is what keeps a link swapped in
// later from leading out.
func (w *Workspace) Resolve(base, p string) (string, error) {
	abs, _, err := w.memo.remember(resolveKey{base, p, false}, func() (string, bool, error) {
		abs, err := w.resolve(base, p)
		return abs, false, err
	})
	return abs, err
}

func (w *Workspace) resolve(base, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasDrive(p) {
		return "", &EscapeError{Path: p, Reason: "absolute paths are not allowed; write it relative to the contract"}
	}
	joined := filepath.Join(base, filepath.FromSlash(p))
	rel, ok := w.Disk.Rel(joined)
	if !ok {
		return "", &EscapeError{Path: p, Reason: "it climbs above the workspace folder with .."}
	}
	real, err := w.ResolveBelow(rel)
	if err == nil && (underGit(rel) || underGit(real)) {
		return "", &EscapeError{Path: p, Reason: "it lies in a .git folder, which holds the repository's settings and remotes", Never: true}
	}
	if err != nil {
		var esc *EscapeError
		if errors.As(err, &esc) {
			// Say it in the contract's words, with the link that leads out.
			return "", &EscapeError{Path: p, Reason: esc.Reason, Link: esc.Link, Target: esc.Target, Never: esc.Never}
		}
		var loop *LoopError
		if errors.As(err, &loop) {
			return "", &LoopError{Path: p}
		}
		return "", fmt.Errorf("unable to resolve %s: %w", p, err)
	}
	return joined, nil
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}
