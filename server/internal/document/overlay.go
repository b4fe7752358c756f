package document

import (
	"io/fs"
	"path/filepath"
	"time"
)

// Files is what a snapshot is laid over: a workspace's contained access to
// its files on disk (workspace.Files).
type Files interface {
	ReadFile(path string) ([]byte, error)
	Stat(path string) (fs.FileInfo, error)
}

// Snapshot is the set of open documents at one moment. Laid over a
// workspace's files (Over), reading a path gives the editor's buffer when
// the document is open and the file on disk otherwise, read through the
// workspace's Root like every other read. It satisfies workspace.Files,
// so the same checks that `icm check` runs on disk follow a person's
// typing.
type Snapshot struct {
	docs map[string]*Doc
	base Files
	// Gen is the store generation the snapshot was taken at.
	Gen uint64
}

// Over returns the snapshot laid over base: paths of documents that are
// not open are read from base.
func (s *Snapshot) Over(base Files) *Snapshot {
	return &Snapshot{docs: s.docs, base: base, Gen: s.Gen}
}

// Doc returns the open document at path, if any.
func (s *Snapshot) Doc(path string) (*Doc, bool) {
	d, ok := s.docs[path]
	return d, ok
}

// ReadFile returns the buffer of an open document, else the file from the
// files the snapshot is laid over.
func (s *Snapshot) ReadFile(path string) ([]byte, error) {
	if d, ok := s.docs[path]; ok {
		return d.Text, nil
	}
	if s.base == nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotOpen}
	}
	return s.base.ReadFile(path)
}

// errNotOpen: a snapshot laid over nothing holds only the open documents.
var errNotOpen = fs.ErrNotExist

// Stat describes an open document as a regular file of its buffer's size,
// else stats the disk.
func (s *Snapshot) Stat(path string) (fs.FileInfo, error) {
	if d, ok := s.docs[path]; ok {
		return bufferInfo{name: filepath.Base(path), size: int64(len(d.Text))}, nil
	}
	if s.base == nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: errNotOpen}
	}
	return s.base.Stat(path)
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
