package document

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Snapshot is the set of open documents at one moment, laid over the disk:
// reading a path gives the editor's buffer when the document is open and
// the file on disk otherwise. It satisfies workspace.Files, so the same
// checks that `icm check` runs on disk follow a person's typing.
type Snapshot struct {
	docs map[string]*Doc
	// Gen is the store generation the snapshot was taken at.
	Gen uint64
}

// Doc returns the open document at path, if any.
func (s *Snapshot) Doc(path string) (*Doc, bool) {
	d, ok := s.docs[path]
	return d, ok
}

// ReadFile returns the buffer of an open document, else the file on disk.
func (s *Snapshot) ReadFile(path string) ([]byte, error) {
	if d, ok := s.docs[path]; ok {
		return d.Text, nil
	}
	return os.ReadFile(path)
}

// Stat describes an open document as a regular file of its buffer's size,
// else stats the disk.
func (s *Snapshot) Stat(path string) (fs.FileInfo, error) {
	if d, ok := s.docs[path]; ok {
		return bufferInfo{name: filepath.Base(path), size: int64(len(d.Text))}, nil
	}
	return os.Stat(path)
}

// bufferInfo is the fs.FileInfo of an open buffer.
type bufferInfo struct {
	name string
	size int64
}

func (b bufferInfo) Name() string       { return b.name }
func (b bufferInfo) Size() int64        { return b.size }
func (b bufferInfo) Mode() fs.FileMode  { return 0o644 }
func (b bufferInfo) ModTime() time.Time { return time.Time{} }
func (b bufferInfo) IsDir() bool        { return false }
func (b bufferInfo) Sys() any           { return nil }
