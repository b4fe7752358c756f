package snapshot

import (
	"context"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Workspace is one workspace the editor has open, alive from discovery
// until its folder leaves the editor: the workspace as opened from disk
// with a session over it (the settings in force, the tool servers it
// configures), its latest snapshot, and the background work that makes
// the next one. Its analysis goroutine runs check.Run (the code behind
// `icm check`) whenever something the workspace reads changes; the model
// facts (models.go) and tool listings (tools.go) it learns in the
// background bring a new analysis when they change what a check says.
type Workspace struct {
	set  *Set
	root string

	ctx    context.Context
	cancel context.CancelFunc
	kick   chan struct{}
	done   chan struct{}

	mu sync.Mutex
	// cur is the workspace as opened from disk with its session (with
	// the settings in force then); nil until opened. stale says it must
	// be opened again before its next use; stopped, that it never will.
	cur     *Opening
	stale   bool
	stopped bool
	openErr error
	window  int           // the model's context window, 0 when unknown
	winKey  string        // host+model the window was asked for
	winDone chan struct{} // closed when the last window query ended
	// unlisted are the latest tool listing failures by server, and
	// listing the servers being listed for a count (counts.go).
	unlisted map[string]listFailure
	listing  map[string]bool

	files []string // the workspace's files for path suggestions; nil until needed, reset when files come or go

	want     uint64 // counts the requests for analysis (Touch)
	have     uint64 // the value of want when the latest analysis began
	analyzed bool
	latest   *Snapshot
	ready    chan struct{} // closed and replaced after every analysis

	countMemo promptcount.Memo
	// shown is the status the editor was last shown (status.go).
	shown *Status
}

func newWorkspace(s *Set, root string) *Workspace {
	ctx, cancel := context.WithCancel(s.ctx)
	return &Workspace{set: s, root: root, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1), done: make(chan struct{}),
		unlisted: map[string]listFailure{}, listing: map[string]bool{}, ready: make(chan struct{})}
}

// Root is the workspace's root folder.
func (w *Workspace) Root() string { return w.root }

// Context lives as long as the workspace is open.
func (w *Workspace) Context() context.Context { return w.ctx }

func (w *Workspace) start() {
	w.Touch(false)
	go w.loop()
}

// stop ends the analysis and lets go of the workspace: it is closed once
// the requests still using it are done.
func (w *Workspace) stop() {
	w.cancel()
	<-w.done
	w.mu.Lock()
	cur, last := w.cur, w.latest
	w.cur, w.latest, w.analyzed, w.stopped = nil, nil, false, true
	w.mu.Unlock()
	cur.Release()
	last.Release()
}

// Touch asks for a new snapshot; reopen also rereads the workspace's
// folders and config first (a stage or config.toml changed on disk, or
// the settings did). It never waits.
func (w *Workspace) Touch(reopen bool) {
	w.mu.Lock()
	w.want++
	if reopen {
		w.stale = true
		w.files = nil
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // an analysis is already due; it will see this change too
	}
}

func (w *Workspace) loop() {
	defer close(w.done)
	defer w.set.recoverLog("analysis of " + w.root)
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.kick:
		}
		if d := w.set.opts.Debounce; d > 0 {
			t := time.NewTimer(d)
			select {
			case <-w.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		w.analyze()
	}
}

// Acquire returns the workspace as opened from disk with its session,
// opening it again (with a new session) when it was marked stale; the
// caller holds it and must release it.
func (w *Workspace) Acquire() (*Opening, error) {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return nil, workspaceClosed()
	}
	if w.cur != nil && !w.stale {
		o := w.cur
		o.hold()
		w.mu.Unlock()
		return o, nil
	}
	ws, err := workspace.OpenWith(w.root, workspace.Options{Repository: w.set.opts.Getenv("ICM_REPO")})
	if err != nil {
		w.openErr = err
		w.mu.Unlock()
		return nil, err
	}
	sess := w.set.opts.Session(ws)
	old := w.cur
	var prev *session.Session
	if old != nil {
		prev = old.sess
	}
	// Tool servers started for listings stay when the new session starts
	// them the same way; otherwise their failures are forgotten too.
	if !sess.Tools().KeepFrom(prev) {
		w.unlisted = map[string]listFailure{}
	}
	o := newOpening(ws, sess) // the Workspace's hold
	o.hold()                  // the caller's
	w.cur, w.stale, w.openErr = o, false, nil
	w.mu.Unlock()
	// Outside the lock: closing a session waits for its tool listings.
	old.Release()
	return o, nil
}

// OpenSession opens the workspace afresh from disk, with the settings in
// force, for one operation (a run, an approval, a status); release it
// after.
func (w *Workspace) OpenSession() (*Opening, error) {
	ws, err := workspace.OpenWith(w.root, workspace.Options{Repository: w.set.opts.Getenv("ICM_REPO")})
	if err != nil {
		return nil, err
	}
	return newOpening(ws, w.set.opts.Session(ws)), nil
}

// listFiles returns the cached file list of the workspace.
func (w *Workspace) listFiles() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil && w.cur != nil && !w.stale {
		// Under mu, the current opening cannot be let go.
		w.files = check.ListFiles(w.cur.ws)
	}
	return w.files
}

// checkFacts are what the editor learned that its checks use: the
// window the model server told, its models, and the workspace's files,
// listed once until a file is created or deleted (walking the workspace
// for a path suggestion on every keystroke would put disk reads on the
// typing path).
func (w *Workspace) checkFacts(sess *session.Session) session.CheckFacts {
	return session.CheckFacts{Window: w.windowSize(), Models: w.set.modelFacts(w, sess), Files: w.listFiles}
}

// knowsContract reports whether path is the contract of a stage the
// workspace listed when it was opened.
func (w *Workspace) knowsContract(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil || w.stale {
		return true // it will be opened afresh anyway
	}
	for _, stg := range w.cur.ws.Stages {
		if stg.Contract == path {
			return true
		}
	}
	return path == w.cur.ws.Abs(workspace.RoutingFile)
}
