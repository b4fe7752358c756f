package workspace

import (
	"io/fs"
	"os"
)

// Files reads the content of workspace files. The command line reads the
// disk; the language server overlays the buffers a person is editing.
type Files interface {
	ReadFile(path string) ([]byte, error)
	Stat(path string) (fs.FileInfo, error)
}

// DiskFiles reads files from disk.
type DiskFiles struct{}

// ReadFile reads path from disk.
func (DiskFiles) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// Stat stats path on disk.
func (DiskFiles) Stat(path string) (fs.FileInfo, error) { return os.Stat(path) }
