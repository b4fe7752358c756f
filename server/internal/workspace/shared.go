package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
)

// A repository may hold several workspaces and a folder they share (the
// ICM template's /_core/). Contracts name its files with a leading "/"
// (`/_core/conventions.md`) or with ".." climbing out of the workspace.
// Such inputs are read, never written, from the repository root, which is:
//
//   - the folder a person names with --repo DIR or ICM_REPO (never
//     config.toml: a workspace does not choose what it may read), which
//     must hold the workspace;
//   - else the nearest folder at or above the workspace holding .git;
//   - else none: outside git, "/" and ".." stay inside the workspace.
//
// The filesystem root and the home folder (and anything above it) are
// never a repository root found by looking for .git. Reads go through a
// read-only Root opened at the repository root, with the workspace's own
// containment: a link that leaves the repository is refused, only regular
// files are read, every read is capped. Hidden files and folders outside
// the workspace, and anything under a .git folder anywhere, are never read;
// both rules are applied to the path a link leads to, not only to the path
// as written.

// NameTheRepository says how a person names a repository root.
const NameTheRepository = "name the repository root with --repo DIR or ICM_REPO"

// OutsideGitShared says how a shared path is read in a workspace that is
// in no git repository and names no root: check's note and a run's
// refusal of such an input both give these words.
const OutsideGitShared = "outside a git repository a leading / means the workspace root, and icm reads nothing above it (" + NameTheRepository + ")"

// SharedFromItself reports whether the shared path p (a leading /) is read
// from the workspace alone, because it is in no git repository and names
// no root: whether p is in the repository above it is then not known.
func (w *Workspace) SharedFromItself(p string) bool {
	return strings.HasPrefix(p, "/") && w.Repository == ""
}

// Where the repository root came from.
const (
	RepositoryGit   = "git"   // the nearest folder holding .git
	RepositoryNamed = "named" // --repo DIR or ICM_REPO
)

// repository finds the folders above root that shared paths may be read
// from, nearest first, and the repository root (the last of them). named,
// when set, is the repository root a person gave. A .git in root itself,
// or a named root that is the workspace, makes the workspace its own
// repository root: nothing above it is read. With no repository at all,
// top is "".
func repository(root, named string) (top string, above []string, from string, err error) {
	if named != "" {
		abs, err := filepath.Abs(named)
		if err != nil {
			return "", nil, "", fmt.Errorf("unable to resolve the repository root %s: %w", named, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", nil, "", fmt.Errorf("unable to open the repository root %s: %w", named, err)
		}
		if _, ok := relWithin(real, root); !ok {
			return "", nil, "", &RepositoryError{Repo: real, Workspace: root}
		}
		for dir := root; dir != real; {
			dir = filepath.Dir(dir)
			above = append(above, dir)
		}
		return real, above, RepositoryNamed, nil
	}
	if exists(filepath.Join(root, ".git")) {
		return root, nil, RepositoryGit, nil
	}
	home, _ := os.UserHomeDir()
	for dir := root; ; {
		parent := filepath.Dir(dir)
		if parent == dir || parent == filepath.Dir(parent) || (home != "" && isWithin(parent, home)) {
			return "", nil, "", nil // never the filesystem root, the home folder or above it
		}
		above = append(above, parent)
		if exists(filepath.Join(parent, ".git")) {
			return parent, above, RepositoryGit, nil
		}
		dir = parent
	}
}

// RepositoryError says the repository root a person named does not hold
// the workspace.
type RepositoryError struct{ Repo, Workspace string }

func (e *RepositoryError) Error() string {
	return fmt.Sprintf("the repository root %s does not hold the workspace %s", e.Repo, e.Workspace)
}

// Hint says what to do.
func (e *RepositoryError) Hint() string {
	return "name the folder that holds the workspace with --repo DIR (or ICM_REPO), or leave it out"
}

// Fault is a repository setting that cannot be used.
func (e *RepositoryError) Fault() *fault.Error { return fault.ConfigInvalid(e.Error(), e.Hint(), "") }

// openRepository opens the read-only Root of the workspace's repository,
// when it has one above it.
func (w *Workspace) openRepository(named string) error {
	top, above, from, err := repository(w.Root, named)
	if err != nil {
		return err
	}
	w.RepositoryFrom = from
	if top == "" {
		return nil
	}
	w.Repository, w.RepositoryIsGit = top, from == RepositoryGit
	if top == w.Root {
		return nil // the workspace is its own repository: nothing above it
	}
	r, err := OpenRoot(top, RootOptions{ReadOnly: true, MaxRead: w.Disk.MaxRead()})
	if err != nil {
		return fmt.Errorf("unable to open the repository root %s: %w", top, err)
	}
	w.Repository, w.above, w.repo = r.Dir(), above, r
	return nil
}

// sharedExists checks a path below the repository root, written p in the
// contract and rel below the root: nil when it is there, fs.ErrNotExist
// when it is not, an EscapeError for a hidden file, anything under .git,
// or a link out. The hidden-file rule is applied to the path as written
// and to the one its links lead to, so a link named "gl" that points at
// .git does not open it.
func (w *Workspace) sharedExists(p, rel string) error {
	if hidden(rel) {
		return &EscapeError{Path: p, Reason: "hidden files and folders outside the workspace are never read", Never: underGit(rel)}
	}
	real, err := w.repo.Resolve(rel)
	if err == nil && hidden(real) {
		return &EscapeError{Path: p, Reason: fmt.Sprintf("it leads to %s: hidden files and folders outside the workspace are never read", real), Never: underGit(real)}
	}
	if err == nil {
		_, err = w.repo.Stat(rel)
	}
	var esc *EscapeError
	if errors.As(err, &esc) {
		return &EscapeError{Path: p, Reason: strings.ReplaceAll(esc.Reason, "outside the workspace", "outside the repository "+w.Repository), Link: esc.Link, Target: esc.Target}
	}
	return err
}

// hidden reports whether a slash path below a root has a component that
// starts with a dot (other than "." and "..").
func hidden(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}

// underGit reports whether a slash path has a .git component: nothing
// there is ever read, inside the workspace or out.
func underGit(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".git" {
			return true
		}
	}
	return false
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
		if f, _, err := w.FindInput(w.Root, rel); err == nil && f.Shared {
			return f.Abs
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
