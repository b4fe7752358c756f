package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// ReadFile reads a regular file of the tree, up to the tree's read cap.
// p is absolute (inside the tree) or relative to it. A file over the cap
// is a TooLargeError and is not read; a named pipe, device or socket is a
// NotRegularError; a path that leaves is an EscapeError.
func (r *Root) ReadFile(p string) ([]byte, error) { return r.ReadFileMax(p, r.maxRead) }

// ReadFileMax is ReadFile with a cap of its own.
func (r *Root) ReadFileMax(p string, max int64) ([]byte, error) {
	f, info, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name, _ := r.name(p)
	return readCapped(f, info, name, max)
}

// readCapped reads an open regular file whole unless it holds more than
// max bytes, in which case nothing beyond the check is read.
func readCapped(f io.Reader, info fs.FileInfo, name string, max int64) ([]byte, error) {
	if info.Size() > max {
		return nil, &TooLargeError{Path: name, Size: info.Size(), Max: max}
	}
	// The size may change while reading: read one byte more than allowed
	// to notice a file that grew past the cap.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: name, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// Open opens a regular file of the tree for reading and returns it with
// its details. The open does not block (a named pipe would wait for a
// writer) and what was opened is checked afterwards, on the descriptor
// itself: only a regular file is returned.
func (r *Root) Open(p string) (*os.File, fs.FileInfo, error) {
	name, err := r.name(p)
	if err != nil {
		return nil, nil, err
	}
	f, err := do(r, "open", name, func(root *os.Root, n string) (*os.File, error) {
		return root.OpenFile(n, os.O_RDONLY|openNonblock, 0)
	})
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("unable to read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		if info.IsDir() {
			return nil, nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
		}
		return nil, nil, &NotRegularError{Path: name, Kind: SpecialKind(info.Mode())}
	}
	return f, info, nil
}

// Stat describes a file of the tree, following links that stay inside.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	name, err := r.name(p)
	if err != nil {
		return nil, err
	}
	return do(r, "stat", name, (*os.Root).Stat)
}

// Lstat describes a file of the tree without following a final link.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	name, err := r.name(p)
	if err != nil {
		return nil, err
	}
	return do(r, "lstat", name, (*os.Root).Lstat)
}

// ReadDir lists a folder of the tree, sorted by name. Entries describe
// themselves (a link is a link), so walking the list follows nothing.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	name, err := r.name(p)
	if err != nil {
		return nil, err
	}
	entries, err := do(r, "readdir", name, readDir)
	if nr := (*NotRegularError)(nil); errors.As(err, &nr) {
		nr.Folder = true
	}
	return entries, err
}

// WalkDir walks the tree below p as fs.WalkDir does, in lexical order,
// without following symbolic links; paths passed to fn are below the tree.
func (r *Root) WalkDir(p string, fn fs.WalkDirFunc) error {
	name, err := r.name(p)
	if err != nil {
		return err
	}
	if h, dir, rel := r.at(name); h != nil {
		// Through a pass's folder handle when the start of the walk is
		// there (or plainly missing) as seen from it: below the start the
		// walk follows no link, so the handle sees what the tree sees.
		if _, err := h.Stat(rel); err == nil || errors.Is(err, fs.ErrNotExist) {
			return fs.WalkDir(listFS{h}, rel, func(p string, d fs.DirEntry, err error) error {
				return fn(path.Join(dir, p), d, rebase(err, dir))
			})
		}
	}
	return fs.WalkDir(listFS{r.r}, name, fn)
}

// rebase names the path of an error met below the folder dir from the top
// of the tree, as the callers of WalkDir expect.
func rebase(err error, dir string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path.Join(dir, pe.Path), Err: pe.Err}
	}
	return err
}

// readDir lists the folder name of root, sorted by name. The folder is
// opened without blocking, as files are: a named pipe in its place would
// otherwise hold the open until a writer comes (os.Root's own ReadDir
// opens it plainly).
func readDir(root *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// listFS is a root's file system as fs.WalkDir reads it (Stat and
// ReadDir), with folders listed by readDir.
type listFS struct{ root *os.Root }

func (l listFS) Open(name string) (fs.File, error)          { return l.root.FS().Open(name) }
func (l listFS) Stat(name string) (fs.FileInfo, error)      { return l.root.Stat(name) }
func (l listFS) ReadDir(name string) ([]fs.DirEntry, error) { return readDir(l.root, name) }

// Resolve follows p below the tree the way an open would and returns the
// path it lands on, symlinks followed (components that do not exist yet
// kept as written), or why it cannot: an EscapeError naming the link that
// leaves, or a LoopError.
func (r *Root) Resolve(p string) (string, error) {
	name, err := r.name(p)
	if err != nil {
		return "", err
	}
	real, _, err := r.walk(name)
	return real, err
}
