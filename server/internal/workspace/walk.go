package workspace

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// MaxLinks is how many symbolic links one path may pass through: the
// limit os.Root applies too (POSIX's smallest SYMLOOP_MAX), so the walk
// and the open agree on what resolves.
const MaxLinks = 8

// walk follows name (a clean slash path below the tree) one component at a
// time the way the kernel does: a symbolic link's target is put in front
// of the components still to come, each expansion counts, and past
// MaxLinks the answer is a LoopError. The work is linear in the number of
// components plus the lengths of the targets expanded; nothing is walked
// twice. It returns the path it lands on, symlinks followed, and missing
// when a component does not exist (the rest is then kept as written, so a
// file not yet written still has its folders checked). A link that leads
// outside gives an EscapeError naming it.
//
// Every step goes through os.Root (Lstat and Readlink of a path whose
// folders are already resolved), so the walk itself never touches
// anything outside; and it decides nothing on its own: opens go through
// os.Root, which refuses escapes whatever the walk said.
func (r *Root) walk(name string) (real string, missing bool, err error) {
	queue := splitPath(name)
	var cur []string
	links := 0
	lastLink, lastTarget := "", ""
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				if lastLink != "" {
					return "", false, linkEscape(name, lastLink, lastTarget)
				}
				return "", false, &EscapeError{Path: name, Reason: "it climbs above the workspace folder with .."}
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := joinPath(cur, c)
		fi, err := r.lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
				rest := path.Join(append([]string{next}, queue...)...)
				if rest == ".." || strings.HasPrefix(rest, "../") {
					return "", false, &EscapeError{Path: name, Reason: "it climbs above the workspace folder with .."}
				}
				return rest, true, nil
			}
			return "", false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			continue
		}
		links++
		if links > MaxLinks {
			return "", false, &LoopError{Path: name}
		}
		target, err := r.readlink(next)
		if err != nil {
			return "", false, err
		}
		lastLink, lastTarget = next, target
		if filepath.IsAbs(target) {
			rel, ok := relWithin(r.dir, target)
			if !ok {
				if rel, ok = relWithin(r.given, target); !ok {
					return "", false, linkEscape(name, next, target)
				}
			}
			cur = nil
			queue = append(splitPath(rel), queue...)
			continue
		}
		queue = append(splitPath(filepath.ToSlash(target)), queue...)
	}
	return joinPath(cur, ""), false, nil
}

// splitPath cuts a slash path into its components.
func splitPath(p string) []string {
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// joinPath joins resolved components and one more ("" for none); the
// tree itself is ".".
func joinPath(cur []string, c string) string {
	parts := cur
	if c != "" {
		parts = append(append([]string(nil), cur...), c)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}
