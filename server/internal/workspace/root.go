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

// DefaultMaxRead is the most bytes one read takes when nothing else is
// configured: far above any contract, reference or draft a stage works
// with, far below what could exhaust memory.
const DefaultMaxRead = 8 << 20

// Root is one folder tree opened for contained access, the only way icm
// reads and writes the files of a workspace. Every path is opened relative
// to the tree's own descriptor (os.Root), so no path, however written,
// and no symbolic link, however swapped, leads outside: a link that stays
// inside is followed, one that leaves is refused with an error naming it.
// Reads take regular files only (opened without blocking, then checked,
// so a named pipe cannot stall an open) and are capped; writes replace
// files atomically. A Root may be read-only (a shared folder above a
// workspace): then every write is refused.
type Root struct {
	// dir is the tree's absolute path, symlinks resolved; given is the
	// path as it was asked for (links pointing at either are inside).
	dir, given string
	r          *os.Root
	readOnly   bool
	maxRead    int64
	// lstats, when set, remembers what walk found, and folders holds the
	// folders opened so far: both only in a pass's copy (Workspace.Pass).
	lstats  *lstatMemo
	folders *folders
}

// RootOptions change how a Root behaves.
type RootOptions struct {
	// ReadOnly refuses every write.
	ReadOnly bool
	// MaxRead caps one read in bytes (DefaultMaxRead when zero).
	MaxRead int64
}

// OpenRoot opens the folder dir for contained access.
func OpenRoot(dir string, opts RootOptions) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("unable to open %s: %w", dir, err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("unable to open %s: %w", dir, err)
	}
	if opts.MaxRead <= 0 {
		opts.MaxRead = DefaultMaxRead
	}
	return &Root{dir: real, given: abs, r: r, readOnly: opts.ReadOnly, maxRead: opts.MaxRead}, nil
}

// Dir returns the tree's absolute path, symlinks resolved.
func (r *Root) Dir() string { return r.dir }

// MaxRead returns the read cap in bytes.
func (r *Root) MaxRead() int64 { return r.maxRead }

// ReadOnly reports whether writes are refused.
func (r *Root) ReadOnly() bool { return r.readOnly }

// Close releases the tree's descriptor.
func (r *Root) Close() error { return r.r.Close() }

// Rel returns p (absolute, or relative to the tree) as a slash path below
// the tree, and false when p lies outside it.
func (r *Root) Rel(p string) (string, bool) {
	name, err := r.name(p)
	if err != nil {
		return "", false
	}
	return name, true
}

// Contains reports whether the absolute path p is the tree or below it.
func (r *Root) Contains(p string) bool {
	_, ok := relWithin(r.dir, p)
	if !ok {
		_, ok = relWithin(r.given, p)
	}
	return ok
}

// name turns p into the name os.Root takes: a clean slash path below the
// tree ("." for the tree itself). An absolute p must lie inside the tree;
// a relative one is taken from the tree and may not climb above it.
func (r *Root) name(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	if filepath.IsAbs(p) {
		rel, ok := relWithin(r.dir, p)
		if !ok {
			if rel, ok = relWithin(r.given, p); !ok {
				return "", &EscapeError{Path: p, Reason: "it is outside the workspace " + r.dir}
			}
		}
		return rel, nil
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &EscapeError{Path: p, Reason: "it climbs above the workspace folder with .."}
	}
	return clean, nil
}

// relWithin returns p relative to dir with slashes, and whether p is dir
// or below it.
func relWithin(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// explain turns an error of os.Root about name into one a person can act
// on. os.Root has already refused whatever leaves the tree; the walk here
// only finds which link did it, so no decision rests on its answer. It
// returns, besides the error, the path the walk landed on when that
// differs from name and lies inside (a link written as an absolute path to
// a place in the tree, which os.Root refuses on principle): the caller may
// retry that path, through os.Root again.
func (r *Root) explain(op, name string, err error) (retry string, _ error) {
	if errors.Is(err, fs.ErrNotExist) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	real, missing, werr := r.walk(name)
	if werr != nil {
		return "", werr
	}
	if real != name && !missing {
		return real, nil
	}
	if isLoop(err) {
		return "", &LoopError{Path: name}
	}
	if kind := r.special(name); kind != "" {
		return "", &NotRegularError{Path: name, Kind: kind}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "", &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return "", err
}

// special says what kind of special file name is ("a named pipe (FIFO)",
// "a device", "a socket"), or "" for a regular file, folder or link.
func (r *Root) special(name string) string {
	fi, err := r.r.Lstat(name)
	if err != nil {
		return ""
	}
	return SpecialKind(fi.Mode())
}

// SpecialKind says what a file of mode m is when it is not a regular
// file, folder or link ("a named pipe (FIFO)", "a socket"), else "".
func SpecialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return ""
}

// do runs the read op on name: through the handle of a folder above it
// when a pass holds one and its answer stands (see folders), else through
// the tree's descriptor as doTree does.
func do[T any](r *Root, opName, name string, op func(root *os.Root, name string) (T, error)) (T, error) {
	if v, err, ok := inFolder(r, name, op); ok {
		if err != nil {
			_, err = r.explain(opName, name, err) // "does not exist", named as asked
			var zero T
			return zero, err
		}
		return v, nil
	}
	return doTree(r, opName, name, func(n string) (T, error) { return op(r.r, n) })
}

// doTree runs op on name through the tree's descriptor, and once more on
// the place a link written as an absolute path leads to when that place is
// inside. Writes always come here.
func doTree[T any](r *Root, opName, name string, op func(string) (T, error)) (T, error) {
	v, err := op(name)
	if err == nil {
		return v, nil
	}
	retry, err := r.explain(opName, name, err)
	if retry == "" {
		var zero T
		return zero, err
	}
	v, err = op(retry)
	if err != nil {
		_, err = r.explain(opName, name, err)
		var zero T
		return zero, err
	}
	return v, nil
}
