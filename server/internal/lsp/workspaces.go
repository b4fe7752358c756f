package lsp

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// discoverDepth bounds how deep below an editor folder workspaces are
// looked for (a repository holding workspaces/NAME/ is two levels down).
const discoverDepth = 4

// workspaces holds the ICM workspaces the server knows, by root.
type workspaces struct {
	s      *Server
	mu     sync.Mutex
	byRoot map[string]*wsState
	// closed is set by close: discovery still going on in the background
	// then opens nothing more, since nothing would stop what it opened.
	closed bool
}

func newWorkspaces(s *Server) *workspaces {
	return &workspaces{s: s, byRoot: map[string]*wsState{}}
}

// discover finds the workspaces in and around an editor folder: the
// workspace holding it, and any below it.
func (w *workspaces) discover(folder string) {
	folder = canonical(folder)
	if root, err := workspace.Find(folder); err == nil {
		w.ensure(root)
	}
	base := strings.Count(folder, string(filepath.Separator))
	_ = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != folder && (strings.HasPrefix(name, ".") || name == "node_modules" || name == workspace.OutputDir || name == workspace.HistoryDir) {
			return filepath.SkipDir
		}
		if strings.Count(p, string(filepath.Separator))-base > discoverDepth {
			return filepath.SkipDir
		}
		if workspace.IsRoot(p) {
			w.ensure(p)
			return filepath.SkipDir // stages are not workspaces of their own
		}
		return nil
	})
}

// ensure returns the workspace at root, opening it when new; nil once the
// server is closing.
func (w *workspaces) ensure(root string) *wsState {
	root = canonical(root)
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.byRoot[root]; ok {
		return st
	}
	if w.closed {
		return nil
	}
	st := newWSState(w.s, root)
	w.byRoot[root] = st
	st.start()
	return st
}

// forPath returns the known workspace holding path (the innermost one),
// or finds and opens the one around it.
func (w *workspaces) forPath(path string) *wsState {
	w.mu.Lock()
	var best *wsState
	for root, st := range w.byRoot {
		if within(root, path) && (best == nil || len(root) > len(best.root)) {
			best = st
		}
	}
	w.mu.Unlock()
	if best != nil {
		return best
	}
	// Not below a known workspace (yet: discovery runs in the background):
	// look for the workspace around it.
	root, err := workspace.Find(filepath.Dir(path))
	if err != nil {
		return nil
	}
	return w.ensure(root)
}

// byName returns the workspace whose root is path (as the commands name it).
func (w *workspaces) byName(path string) *wsState {
	path = canonical(filepath.Clean(path))
	w.mu.Lock()
	st := w.byRoot[path]
	w.mu.Unlock()
	if st != nil {
		return st
	}
	if _, err := os.Stat(path); err == nil && workspace.IsRoot(path) {
		return w.ensure(path)
	}
	return nil
}

// all lists the workspaces in root order.
func (w *workspaces) all() []*wsState {
	w.mu.Lock()
	out := make([]*wsState, 0, len(w.byRoot))
	for _, st := range w.byRoot {
		out = append(out, st)
	}
	w.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].root < out[j].root })
	return out
}

// remove forgets the workspaces under folder (a folder the editor closed).
func (w *workspaces) remove(folder string) {
	folder = canonical(folder)
	w.mu.Lock()
	var gone []*wsState
	for root, st := range w.byRoot {
		if within(folder, root) {
			gone = append(gone, st)
			delete(w.byRoot, root)
		}
	}
	w.mu.Unlock()
	for _, st := range gone {
		st.stop()
	}
}

// close stops every workspace's analysis and tool listings.
func (w *workspaces) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	for _, st := range w.all() {
		st.stop()
	}
}

// within reports whether p is root or lies below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
