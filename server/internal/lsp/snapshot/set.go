package snapshot

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Options are what a Set needs from the front end that owns it.
type Options struct {
	// Log receives what the background work has to say.
	Log *slog.Logger
	// Getenv reads the environment (ICM_REPO, and what the model lists
	// and counts read through the sessions).
	Getenv func(string) string
	// Debounce is how long an analysis waits after a change for more
	// changes. Zero analyses at once; changes that arrive while an
	// analysis runs are folded into one follow-up analysis either way.
	Debounce time.Duration
	// Session opens a session over a workspace with the settings in
	// force (called again whenever the workspace is opened afresh).
	Session func(ws *workspace.Workspace) *session.Session
	// Go runs f on a goroutine the owner waits for before it stops, and
	// reports whether it did (false once the owner no longer waits).
	Go func(f func()) bool
	// Publish is given each analysis's findings, every file it concerns
	// keyed by path, before the stages are counted. It is called from the
	// workspace's analysis goroutine, one analysis at a time.
	Publish func(ctx context.Context, root string, files map[string]FileFindings)
	// Running describes the run the front end has going in a workspace,
	// nil when none is: a status marks its stage.
	Running func(root string) *Running
	// Analyzed is told of each new snapshot of a workspace, once it is
	// the one Snapshot returns.
	Analyzed func(w *Workspace)
}

// Set is the editor's side of icm: the documents it has open and the
// workspaces they belong to, each with its latest snapshot. It is safe
// for concurrent use.
type Set struct {
	ctx  context.Context
	opts Options
	docs *document.Store

	mu     sync.Mutex
	byRoot map[string]*Workspace
	// closed is set by Close: discovery still going on in the background
	// then opens nothing more, since nothing would stop what it opened.
	closed bool

	// models are the model servers' installed models (models.go).
	models modelLists
}

// New makes a set whose background work lives as long as ctx.
func New(ctx context.Context, opts Options) *Set {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Go == nil {
		opts.Go = func(f func()) bool { go f(); return true }
	}
	if opts.Publish == nil {
		opts.Publish = func(context.Context, string, map[string]FileFindings) {}
	}
	if opts.Running == nil {
		opts.Running = func(string) *Running { return nil }
	}
	if opts.Analyzed == nil {
		opts.Analyzed = func(*Workspace) {}
	}
	return &Set{ctx: ctx, opts: opts, docs: document.NewStore(), byRoot: map[string]*Workspace{}}
}

// Discover finds the workspaces in and around an editor folder: the
// workspace holding it, and any below it.
func (s *Set) Discover(folder string) {
	folder = Canonical(folder)
	if root, err := workspace.Find(folder); err == nil {
		s.ensure(root)
	}
	for _, root := range workspace.Below(folder) {
		s.ensure(root)
	}
}

// ensure returns the workspace at root, opening it when new; nil once the
// set is closed.
func (s *Set) ensure(root string) *Workspace {
	root = Canonical(root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.byRoot[root]; ok {
		return w
	}
	if s.closed {
		return nil
	}
	w := newWorkspace(s, root)
	s.byRoot[root] = w
	w.start()
	return w
}

// ForPath returns the known workspace holding path (the innermost one),
// or finds and opens the one around it; nil when path is in none.
func (s *Set) ForPath(path string) *Workspace {
	s.mu.Lock()
	var best *Workspace
	for root, w := range s.byRoot {
		if within(root, path) && (best == nil || len(root) > len(best.root)) {
			best = w
		}
	}
	s.mu.Unlock()
	if best != nil {
		return best
	}
	// Not below a known workspace (yet: discovery runs in the background):
	// look for the workspace around it.
	root, err := workspace.Find(filepath.Dir(path))
	if err != nil {
		return nil
	}
	return s.ensure(root)
}

// ByName returns the workspace whose root is path (as commands name it);
// nil when path is no workspace.
func (s *Set) ByName(path string) *Workspace {
	path = Canonical(filepath.Clean(path))
	s.mu.Lock()
	w := s.byRoot[path]
	s.mu.Unlock()
	if w != nil {
		return w
	}
	if _, err := os.Stat(path); err == nil && workspace.IsRoot(path) {
		return s.ensure(path)
	}
	return nil
}

// All lists the workspaces in root order.
func (s *Set) All() []*Workspace {
	s.mu.Lock()
	out := make([]*Workspace, 0, len(s.byRoot))
	for _, w := range s.byRoot {
		out = append(out, w)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].root < out[j].root })
	return out
}

// Remove forgets the workspaces under folder (a folder the editor closed).
func (s *Set) Remove(folder string) {
	folder = Canonical(folder)
	s.mu.Lock()
	var gone []*Workspace
	for root, w := range s.byRoot {
		if within(folder, root) {
			gone = append(gone, w)
			delete(s.byRoot, root)
		}
	}
	s.mu.Unlock()
	for _, w := range gone {
		w.stop()
	}
}

// Close stops every workspace's analysis and tool listings.
func (s *Set) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	for _, w := range s.All() {
		w.stop()
	}
}

// recoverLog logs a panic of a background goroutine instead of ending the
// process.
func (s *Set) recoverLog(what string) {
	if r := recover(); r != nil {
		s.opts.Log.Error("panic recovered", "in", what, "panic", r, "stack", string(debug.Stack()))
	}
}

// within reports whether p is root or lies below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// Canonical resolves symlinks in p, or in its nearest existing parent
// when p does not exist (a file about to be created), so it matches the
// paths the workspace package produces (its roots have symlinks
// resolved).
func Canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for dir != filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	return p
}
