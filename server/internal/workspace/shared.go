package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A repository may hold several workspaces and a folder they share (the
// ICM template's /_core/). Contracts name its files with a leading "/"
// (`/_core/conventions.md`) or with ".." climbing out of the workspace.
// Such inputs are read, never written, from the repository root: the
// nearest folder above the workspace holding .git, or, outside git, at most
// maxLevelsOutsideGit folders up. The filesystem root and the home folder
// (and anything above it) are never part of it, and neither are hidden
// files, so a cloned workspace cannot name ~/.ssh. Reads go through a
// read-only Root opened at the repository root, with the workspace's own
// containment: a link that leaves the repository is refused, only regular
// files are read, every read is capped.

// maxLevelsOutsideGit bounds how far above a workspace that is not in a git
// repository icm looks for shared files.
const maxLevelsOutsideGit = 3

// repository finds the folders above root that shared paths may be read
// from, nearest first, and the repository root (the last of them); both
// are empty when there is none. A .git in root itself makes the workspace
// its own repository root: nothing above it is read.
func repository(root string) (top string, above []string, git bool) {
	if exists(filepath.Join(root, ".git")) {
		return "", nil, true
	}
	home, _ := os.UserHomeDir()
	for dir := root; ; {
		parent := filepath.Dir(dir)
		if parent == dir || parent == filepath.Dir(parent) || (home != "" && isWithin(parent, home)) {
			break // never the filesystem root, the home folder or above it
		}
		above = append(above, parent)
		if exists(filepath.Join(parent, ".git")) {
			return parent, above, true
		}
		dir = parent
	}
	if len(above) > maxLevelsOutsideGit {
		above = above[:maxLevelsOutsideGit]
	}
	if len(above) == 0 {
		return "", nil, false
	}
	return above[len(above)-1], above, false
}

// openRepository opens the read-only Root of the workspace's repository,
// when it has one above it.
func (w *Workspace) openRepository() error {
	top, above, git := repository(w.Root)
	if top == "" {
		return nil
	}
	r, err := OpenRoot(top, RootOptions{ReadOnly: true, MaxRead: w.Disk.MaxRead()})
	if err != nil {
		return fmt.Errorf("unable to open the repository root %s: %w", top, err)
	}
	w.Repository, w.RepositoryIsGit, w.above, w.repo = r.Dir(), git, above, r
	return nil
}

// ResolveInput resolves an input path p written in the stage folder base.
// A path inside the workspace resolves as Resolve does. A leading "/" names
// a file of the repository: the workspace's own when it has it, else the
// nearest folder above it that does; one that exists nowhere is returned
// (missing) under the repository root. A relative path that climbs out of
// the workspace is read from the repository when the file is there.
// shared says the path lies outside the workspace: it may be read, never
// written. Anything else is an EscapeError, as for Resolve.
func (w *Workspace) ResolveInput(base, p string) (abs string, shared bool, err error) {
	return w.memo.remember(resolveKey{base, p, true}, func() (string, bool, error) { return w.resolveInput(base, p) })
}

func (w *Workspace) resolveInput(base, p string) (abs string, shared bool, err error) {
	if p == "" {
		return "", false, fmt.Errorf("empty path")
	}
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		return w.resolveRooted(p)
	}
	joined := filepath.Join(base, filepath.FromSlash(p))
	if _, inside := w.Disk.Rel(joined); inside || w.repo == nil || filepath.IsAbs(p) || hasDrive(p) {
		abs, err := w.Resolve(base, p)
		return abs, false, err
	}
	rel, ok := w.repo.Rel(joined)
	if !ok {
		if !w.RepositoryIsGit {
			abs, err := w.Resolve(base, p)
			return abs, false, err
		}
		return "", false, &EscapeError{Path: p, Reason: "it climbs above the repository root " + w.Repository}
	}
	if err := w.sharedExists(p, rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Not there: as before, a path that leaves the workspace.
			abs, err := w.Resolve(base, p)
			return abs, false, err
		}
		return "", false, err
	}
	return joined, true, nil
}

// resolveRooted resolves a path with a leading "/".
func (w *Workspace) resolveRooted(p string) (string, bool, error) {
	rest := strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "/")
	if rest == "" || rest == "." {
		return "", false, &EscapeError{Path: p, Reason: "it names the repository root itself, not a file in it"}
	}
	if _, err := w.Disk.Lstat(rest); err == nil {
		abs, err := w.Resolve(w.Root, rest)
		return abs, false, err
	}
	if w.repo == nil {
		return "", false, &EscapeError{Path: p, Reason: "absolute paths are not allowed, and there is no repository root above the workspace to read it from; write it relative to the contract"}
	}
	for _, dir := range w.above {
		abs := filepath.Join(dir, filepath.FromSlash(rest))
		rel, _ := w.repo.Rel(abs)
		if _, err := w.repo.Lstat(rel); err != nil {
			continue
		}
		if err := w.sharedExists(p, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, err
		}
		return abs, true, nil
	}
	return filepath.Join(w.Repository, filepath.FromSlash(rest)), true, nil
}

// sharedExists checks a path below the repository root, written p in the
// contract and rel below the root: nil when it is there, fs.ErrNotExist
// when it is not, an EscapeError for a hidden file or a link out.
func (w *Workspace) sharedExists(p, rel string) error {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return &EscapeError{Path: p, Reason: "hidden files and folders outside the workspace are never read"}
		}
	}
	_, err := w.repo.Stat(rel)
	var esc *EscapeError
	if errors.As(err, &esc) {
		return &EscapeError{Path: p, Reason: strings.ReplaceAll(esc.Reason, "outside the workspace", "outside the repository "+w.Repository), Link: esc.Link, Target: esc.Target}
	}
	return err
}

// Shared reports whether abs lies outside the workspace, in its repository.
func (w *Workspace) Shared(abs string) bool {
	if w.repo == nil || strings.HasPrefix(abs, w.Root+string(filepath.Separator)) {
		return false
	}
	if _, inside := w.Disk.Rel(abs); inside {
		return false
	}
	_, ok := w.repo.Rel(abs)
	return ok
}

// InputRel names an input file for people and run records: relative to
// the workspace, or for a shared file "/" and its path below the nearest
// folder above the workspace that holds it ("/_core/conventions.md").
func (w *Workspace) InputRel(abs string) string {
	if !w.Shared(abs) {
		return w.Rel(abs)
	}
	for _, dir := range w.above {
		if rel, ok := relWithin(dir, abs); ok {
			return "/" + rel
		}
	}
	return abs
}

// InputAbs turns a name InputRel gave back into the absolute path.
func (w *Workspace) InputAbs(rel string) string {
	if strings.HasPrefix(rel, "/") && w.repo != nil {
		if abs, shared, err := w.resolveRooted(rel); err == nil && shared {
			return abs
		}
	}
	return w.Abs(rel)
}

// ReadInput reads an input file: through Files (the disk, or the editor's
// buffers) inside the workspace, through the read-only repository Root
// outside it.
func (w *Workspace) ReadInput(abs string) ([]byte, error) {
	if w.Shared(abs) {
		return w.repo.ReadFile(abs)
	}
	return w.Files.ReadFile(abs)
}

// StatInput describes an input file as ReadInput reads it.
func (w *Workspace) StatInput(abs string) (fs.FileInfo, error) {
	if w.Shared(abs) {
		return w.repo.Stat(abs)
	}
	return w.Files.Stat(abs)
}

// InputRoot returns the Root an input path is read through: the
// workspace's, or the repository's for a shared one.
func (w *Workspace) InputRoot(abs string) *Root {
	if w.Shared(abs) {
		return w.repo
	}
	return w.Disk
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isWithin reports whether p is dir or below it.
func isWithin(dir, p string) bool {
	_, ok := relWithin(dir, p)
	return ok
}
