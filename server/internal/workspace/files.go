package workspace

import (
	"io/fs"
)

// Files reads the content of workspace files by absolute path. The
// workspace's Root is one (the disk, contained); the language server lays
// the buffers a person is editing over it.
type Files interface {
	ReadFile(path string) ([]byte, error)
	Stat(path string) (fs.FileInfo, error)
}
