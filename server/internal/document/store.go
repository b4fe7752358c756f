package document

import (
	"fmt"
	"sort"
	"sync"
)

// Doc is one version of an open document. It never changes once made: an
// edit produces a new Doc, so a reader holding one sees a consistent text.
type Doc struct {
	// Path is the document's absolute file path, symlinks resolved.
	Path string
	// URI is how the editor names the document (it may reach the file
	// through a symlink, so it is kept as sent).
	URI string
	// Version is the editor's version number of this text.
	Version int32
	// Text is the content.
	Text []byte

	mapperOnce sync.Once
	mapper     *Mapper
}

// Mapper returns the position mapper of this version, built on first use.
func (d *Doc) Mapper() *Mapper {
	d.mapperOnce.Do(func() { d.mapper = NewMapper(d.Text) })
	return d.mapper
}

// Change is one edit an editor sends: replace Range with Text, or, when
// Range is nil, replace the whole document.
type Change struct {
	Range *PosRange
	Text  string
}

// PosRange is a range in LSP positions (0-based line, UTF-16 column).
type PosRange struct {
	Start, End Position
}

// Store holds the documents an editor has open, keyed by absolute path.
// It is safe for concurrent use: the language server's read loop updates
// it while analysis goroutines take snapshots.
type Store struct {
	mu   sync.RWMutex
	docs map[string]*Doc
	gen  uint64
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{docs: map[string]*Doc{}} }

// Open records a newly opened document, replacing any earlier text.
func (s *Store) Open(path, uri string, version int32, text []byte) *Doc {
	d := &Doc{Path: path, URI: uri, Version: version, Text: text}
	s.mu.Lock()
	s.docs[path] = d
	s.gen++
	s.mu.Unlock()
	return d
}

// Apply applies an editor's changes, in order, to the open document at
// path and records the result as version. A version that is not newer than
// the one held is refused (a reordered or repeated notification), and so is
// a change whose range lies outside the text; the document is then left as
// it was.
func (s *Store) Apply(path string, version int32, changes []Change) (*Doc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.docs[path]
	if !ok {
		return nil, fmt.Errorf("document %s is not open", path)
	}
	if version <= old.Version {
		return nil, fmt.Errorf("document %s: version %d is not newer than %d", path, version, old.Version)
	}
	text := old.Text
	m := old.Mapper()
	for i, c := range changes {
		if c.Range == nil {
			text = []byte(c.Text)
			m = nil
			continue
		}
		if m == nil {
			m = NewMapper(text)
		}
		start, err := m.Offset(c.Range.Start)
		if err != nil {
			return nil, fmt.Errorf("document %s: change %d: start: %w", path, i+1, err)
		}
		end, err := m.Offset(c.Range.End)
		if err != nil {
			return nil, fmt.Errorf("document %s: change %d: end: %w", path, i+1, err)
		}
		if end < start {
			return nil, fmt.Errorf("document %s: change %d: the range ends before it starts", path, i+1)
		}
		next := make([]byte, 0, len(text)-(end-start)+len(c.Text))
		next = append(next, text[:start]...)
		next = append(next, c.Text...)
		next = append(next, text[end:]...)
		text = next
		m = nil // offsets of the next change refer to the edited text
	}
	d := &Doc{Path: path, URI: old.URI, Version: version, Text: text}
	if m != nil {
		d.mapperOnce.Do(func() { d.mapper = m })
	}
	s.docs[path] = d
	s.gen++
	return d, nil
}

// Close forgets a document; reads of its path fall back to the disk.
func (s *Store) Close(path string) {
	s.mu.Lock()
	if _, ok := s.docs[path]; ok {
		delete(s.docs, path)
		s.gen++
	}
	s.mu.Unlock()
}

// Get returns the open document at path.
func (s *Store) Get(path string) (*Doc, bool) {
	s.mu.RLock()
	d, ok := s.docs[path]
	s.mu.RUnlock()
	return d, ok
}

// Paths lists the open documents' paths in sorted order.
func (s *Store) Paths() []string {
	s.mu.RLock()
	out := make([]string, 0, len(s.docs))
	for p := range s.docs {
		out = append(out, p)
	}
	s.mu.RUnlock()
	sort.Strings(out)
	return out
}

// Generation counts the changes made to the store; it grows with every
// open, edit and close.
func (s *Store) Generation() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.gen
}

// Snapshot returns the open documents as they are now. The snapshot does
// not change when the store does.
func (s *Store) Snapshot() *Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	docs := make(map[string]*Doc, len(s.docs))
	for p, d := range s.docs {
		docs[p] = d
	}
	return &Snapshot{docs: docs, Gen: s.gen}
}
