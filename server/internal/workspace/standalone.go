package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

// ReadFileAt reads a file a person named on the command line, which may be
// anywhere: with the checks every read of icm has (a regular file, opened
// without blocking, at most max bytes; 0 means DefaultMaxRead), but no
// containment, since that person chose the path.
func ReadFileAt(path string, max int64) ([]byte, error) {
	r, base, err := parentRoot(path, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if max <= 0 {
		max = DefaultMaxRead
	}
	return r.ReadFileMax(base, max)
}

// WriteFileAt writes a file a person named on the command line atomically
// and durably (see Root.WriteFile), creating its folder.
func WriteFileAt(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r, err := OpenRoot(dir, RootOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	return r.WriteFile(filepath.Base(path), data, perm)
}

// parentRoot opens the folder holding path and returns the file's name in it.
func parentRoot(path string, readOnly bool) (*Root, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	r, err := OpenRoot(filepath.Dir(abs), RootOptions{ReadOnly: readOnly})
	if err != nil {
		return nil, "", err
	}
	return r, filepath.Base(abs), nil
}
