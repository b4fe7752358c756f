package snapshot

import (
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// What the editor changes: its buffers and, as it reports them, files on
// disk. Each change updates the documents and asks the workspace concerned
// for a new snapshot; none waits (they are called on the language
// server's read loop).

// Opened records a document the editor opened. A contract the workspace
// did not list when it was opened (a new stage) makes it be read again.
func (s *Set) Opened(path, uri string, version int32, text []byte) {
	s.docs.Open(path, uri, version, text)
	if w := s.ForPath(path); w != nil {
		w.Touch(isContract(path) && !w.knowsContract(path))
	}
}

// Changed applies the editor's changes to an open document, in order,
// as version; a version not newer than the one held, or a change outside
// the text, is refused and the document left as it was.
func (s *Set) Changed(path string, version int32, changes []document.Change) error {
	if _, err := s.docs.Apply(path, version, changes); err != nil {
		return err
	}
	if w := s.ForPath(path); w != nil {
		w.Touch(false)
	}
	return nil
}

// Saved says the editor saved a document; it returns the workspace
// holding it (nil when none), whose state may have changed on disk.
func (s *Set) Saved(path string) *Workspace {
	w := s.ForPath(path)
	if w != nil {
		w.Touch(false)
	}
	return w
}

// Closed forgets a document the editor closed: its path reads from the
// disk again.
func (s *Set) Closed(path string) {
	s.docs.Close(path)
	if w := s.ForPath(path); w != nil {
		w.Touch(false)
	}
}

// DiskChange is a file the editor saw change on disk: created or deleted
// unless Changed.
type DiskChange struct {
	Path    string
	Changed bool
}

// DiskChanged asks each workspace whose files changed for a new snapshot,
// and returns them. A stage folder, a contract, config.toml or an MCP
// configuration file appearing or going, or a change to a file the trust
// decision reads, also makes the workspace be read again; the server's
// own writes (probes) and run traces change nothing a contract reads.
func (s *Set) DiskChanged(changes []DiskChange) []*Workspace {
	touched := map[*Workspace]bool{}
	var order []*Workspace
	for _, c := range changes {
		w := s.ForPath(c.Path)
		if w == nil || ignoredChange(w.root, c.Path) {
			continue
		}
		reopen := !c.Changed || isContract(c.Path) || session.IsServerConfig(c.Path) || w.trustReads(c.Path)
		if _, seen := touched[w]; !seen {
			order = append(order, w)
		}
		touched[w] = touched[w] || reopen
	}
	for _, w := range order {
		w.Touch(touched[w])
	}
	return order
}

// trustReads reports whether the trust decision of the workspace's
// current session depends on the file at path (a stage test case, a
// script one of its commands runs): its change opens the workspace
// again, so what trust lists and allows follows the disk.
func (w *Workspace) trustReads(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Under mu, the current opening cannot be let go.
	return w.cur != nil && !w.stale && w.cur.sess.Trust().Reads(path)
}

// ignoredChange filters out the server's own writes (probes) and run
// traces, which change nothing a contract reads.
func ignoredChange(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, state.StateDir+"/probe/") || strings.HasPrefix(rel, workspace.HistoryDir+"/") || strings.HasPrefix(rel, ".git/")
}

// isContract reports whether a path names a CONTEXT.md file.
func isContract(path string) bool {
	return strings.EqualFold(filepath.Base(path), "CONTEXT.md")
}
