package lsp

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/promptcount"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// wsState is what the server keeps about one workspace: the workspace as
// opened from disk with a session over it (the settings in force, the
// tool servers it configures), the latest analysis with the editor's
// buffers laid over, and the model facts and tool listings hovers show
// (modelfacts.go, toolcatalog.go). Its analysis goroutine runs check.Run
// (the code behind `icm check`) whenever something the workspace reads
// changes.
type wsState struct {
	s    *Server
	root string

	ctx    context.Context
	cancel context.CancelFunc
	kick   chan struct{}
	done   chan struct{}

	mu sync.Mutex
	// cur is the workspace as opened from disk with its session (with
	// the settings in force then); nil until opened. stale says it must
	// be opened again before its next use; stopped, that it never will.
	cur     *opening
	stale   bool
	stopped bool
	openErr error
	window  int           // the model's context window, 0 when unknown
	winKey  string        // host+model the window was asked for
	winDone chan struct{} // closed when the last window query ended
	// unlisted are the latest tool listing failures by server, and
	// listing the servers being listed for a count (toolcatalog.go).
	unlisted map[string]listFailure
	listing  map[string]bool

	files []string // the workspace's files for path suggestions; nil until needed, reset when files come or go

	want     uint64 // counts the requests for analysis (touch)
	have     uint64 // the value of want when the latest analysis began
	analyzed bool
	result   *analysis
	ready    chan struct{} // closed and replaced after every analysis

	statusHash [32]byte // of the last icm/statusChanged sent
	countMemo  promptcount.Memo
	statusMu   sync.Mutex
}

// analysis is one run of the checks over a snapshot of the buffers. It
// holds the opening it was made over while it is the latest, and for
// each request current handed it to.
type analysis struct {
	o      *opening
	ws     *workspace.Workspace // o's, with Files the snapshot
	snap   *document.Snapshot
	report *check.Report
	window int
	// counts are each stage's first calls counted as the run sends them.
	counts map[string]*promptcount.Stage
}

func newWSState(s *Server, root string) *wsState {
	ctx, cancel := context.WithCancel(s.ctx)
	return &wsState{s: s, root: root, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1), done: make(chan struct{}),
		unlisted: map[string]listFailure{}, listing: map[string]bool{}, ready: make(chan struct{})}
}

func (st *wsState) start() {
	st.touch(false)
	go st.loop()
}

// stop ends the analysis and lets go of the workspace: it is closed once
// the requests still using it are done.
func (st *wsState) stop() {
	st.cancel()
	<-st.done
	st.mu.Lock()
	cur, last := st.cur, st.result
	st.cur, st.result, st.analyzed, st.stopped = nil, nil, false, true
	st.mu.Unlock()
	cur.release()
	last.release()
}

// touch asks for a new analysis; reopen also rereads the workspace's
// folders and config (a stage or config.toml changed on disk).
func (st *wsState) touch(reopen bool) {
	st.mu.Lock()
	st.want++
	if reopen {
		st.stale = true
		st.files = nil
	}
	st.mu.Unlock()
	select {
	case st.kick <- struct{}{}:
	default: // an analysis is already due; it will see this change too
	}
}

func (st *wsState) loop() {
	defer close(st.done)
	defer st.s.recoverLog("analysis of " + st.root)
	for {
		select {
		case <-st.ctx.Done():
			return
		case <-st.kick:
		}
		if d := st.s.opts.Debounce; d > 0 {
			t := time.NewTimer(d)
			select {
			case <-st.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		st.analyze()
	}
}

// acquire returns the workspace as opened from disk with its session,
// opening it again (with a new session) when it was marked stale; the
// caller holds it and must release it.
func (st *wsState) acquire() (*opening, error) {
	st.mu.Lock()
	if st.stopped {
		st.mu.Unlock()
		return nil, workspaceClosed()
	}
	if st.cur != nil && !st.stale {
		o := st.cur
		o.hold()
		st.mu.Unlock()
		return o, nil
	}
	ws, err := workspace.OpenWith(st.root, workspace.Options{Repository: st.s.getenv("ICM_REPO")})
	if err != nil {
		st.openErr = err
		st.mu.Unlock()
		return nil, err
	}
	sess := st.s.newSession(ws)
	old := st.cur
	var prev *session.Session
	if old != nil {
		prev = old.sess
	}
	// Tool servers started for listings stay when the new session starts
	// them the same way; otherwise their failures are forgotten too.
	if !sess.KeepTools(prev) {
		st.unlisted = map[string]listFailure{}
	}
	o := newOpening(ws, sess) // the wsState's hold
	o.hold()                  // the caller's
	st.cur, st.stale, st.openErr = o, false, nil
	st.mu.Unlock()
	// Outside the lock: closing a session waits for its tool listings.
	old.release()
	return o, nil
}

// openSession opens the workspace afresh from disk, with the settings in
// force, for one operation (a run, an approval, a status); release it
// after.
func (st *wsState) openSession() (*opening, error) {
	ws, err := workspace.OpenWith(st.root, workspace.Options{Repository: st.s.getenv("ICM_REPO")})
	if err != nil {
		return nil, err
	}
	return newOpening(ws, st.s.newSession(ws)), nil
}

// analyze runs the checks over the current buffers and publishes the
// diagnostics of every file they concern.
func (st *wsState) analyze() {
	// Read the request count before the snapshot: every change that asked
	// for analysis up to here is in the buffers the snapshot holds.
	st.mu.Lock()
	epoch := st.want
	st.mu.Unlock()
	snap := st.s.store.Snapshot()
	o, err := st.acquire()
	if err != nil {
		st.s.log.Warn("unable to open workspace", "root", st.root, "err", err)
		st.finish(epoch, &analysis{snap: snap})
		return
	}
	ws, sess := o.ws, o.sess
	st.ensureWindow(o) // started first, so a hover right after the diagnostics can wait for it
	view := *ws
	view.Files = snap.Over(ws.Disk)
	opts := st.checkOptions(sess)
	opts.Models, opts.ModelServer = st.s.modelFacts(st, sess)
	rep := check.Run(&view, opts)
	// The analysis keeps the hold acquire took.
	a := &analysis{o: o, ws: &view, snap: snap, report: rep, window: st.windowSize()}
	st.s.pub.publish(st.ctx, batch{owner: st.root, files: st.diagnostics(a)})
	// Counted after the diagnostics are out (an exact count of a stage
	// takes tens of milliseconds; the memo keeps unchanged stages').
	a.counts = st.countStages(st.ctx, sess, &view, rep)
	st.finish(epoch, a)
	st.s.contextDocsChanged(st)
}

func (st *wsState) finish(epoch uint64, a *analysis) {
	st.mu.Lock()
	prev := st.result
	st.result, st.have, st.analyzed = a, epoch, true
	close(st.ready)
	st.ready = make(chan struct{})
	st.mu.Unlock()
	prev.release()
}

// current returns an analysis that includes every change made to the
// workspace's buffers so far, waiting for one when needed. The caller
// holds it and must release it.
func (st *wsState) current(ctx context.Context) (*analysis, error) {
	for {
		st.mu.Lock()
		if st.analyzed && st.have >= st.want && st.result.report != nil {
			a := st.result
			a.hold()
			st.mu.Unlock()
			return a, nil
		}
		if st.analyzed && st.have >= st.want {
			err := st.openErr
			st.mu.Unlock()
			return nil, err
		}
		ready := st.ready
		st.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-st.ctx.Done():
			return nil, st.ctx.Err()
		}
	}
}

// workspaceFiles returns the cached file list of the workspace.
func (st *wsState) workspaceFiles() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.files == nil && st.cur != nil && !st.stale {
		// Under mu, the current opening cannot be let go.
		st.files = check.ListFiles(st.cur.ws)
	}
	return st.files
}

func (st *wsState) checkOptions(sess *session.Session) check.Options {
	listed := sess.Listed()
	return check.Options{
		Window:  st.windowSize(),
		Reserve: session.AnswerRoom,
		Servers: sess.Servers(),
		Tools: func(server string) ([]string, bool) {
			names, ok := listed[server]
			return names, ok
		},
		// Walking the workspace for a path suggestion on every keystroke
		// would put disk reads on the typing path: list once, until a file
		// is created or deleted.
		Files: st.workspaceFiles,
	}
}

// diagnostics groups the report's findings by file. Every stage contract
// is listed, with an empty list when clean, so a fixed problem is cleared.
func (st *wsState) diagnostics(a *analysis) map[string]fileDiagnostics {
	out := map[string]fileDiagnostics{}
	mappers := map[string]*document.Mapper{}
	add := func(file string) *fileDiagnostics {
		uri := uriOf(file)
		var version *int32
		if d, ok := a.snap.Doc(file); ok {
			uri = d.URI
			v := d.Version
			version = &v
		}
		fd, ok := out[uri]
		if !ok {
			fd = fileDiagnostics{URI: uri, Version: version}
		}
		out[uri] = fd
		return &fd
	}
	for _, sr := range a.report.Stages {
		if sr.Contract != nil {
			add(sr.Stage.Contract)
		}
		// Cases too: a case that is fixed gets its empty list.
		for _, c := range sr.Cases {
			add(c.File)
		}
	}
	// config.toml too, so a fixed problem there is cleared.
	if cfg := filepath.Join(a.ws.Root, config.FileName); fileExists(a, cfg) {
		add(cfg)
	}
	for _, f := range a.report.Findings {
		file := f.File
		if info, err := a.ws.Files.Stat(file); err == nil && info.IsDir() {
			// A stage folder without a contract: show it on the routing file.
			f.Message = filepath.Base(file) + ": " + f.Message
			file = filepath.Join(a.ws.Root, workspace.RoutingFile)
			f.Range = contract.Range{}
		}
		m, ok := mappers[file]
		if !ok {
			m = mapperFor(a, file)
			mappers[file] = m
		}
		if m == nil {
			continue
		}
		fd := add(file)
		fd.Diagnostics = append(fd.Diagnostics, toDiagnostic(m, f))
		uri := fd.URI
		out[uri] = *fd
	}
	return out
}

// mapperFor returns the mapper of a file as the analysis saw it.
func mapperFor(a *analysis, file string) *document.Mapper {
	if d, ok := a.snap.Doc(file); ok {
		return d.Mapper()
	}
	for _, sr := range a.report.Stages {
		if sr.Stage.Contract == file && sr.Source != nil {
			return document.NewMapper(sr.Source)
		}
	}
	src, err := a.ws.Disk.ReadFile(file)
	if err != nil {
		return document.NewMapper(nil)
	}
	return document.NewMapper(src)
}

// stageOfContract returns the stage report whose contract is file.
func (a *analysis) stageOfContract(file string) *check.StageReport {
	for _, sr := range a.report.Stages {
		if sr.Stage.Contract == file {
			return sr
		}
	}
	return nil
}

// findingsAt returns the findings about file whose range touches [start, end].
func (a *analysis) findingsAt(file string, start, end int) []contract.Finding {
	var out []contract.Finding
	for _, f := range a.report.FindingsFor(file) {
		if f.Range.Start <= end && start <= f.Range.End {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity < out[j].Severity })
	return out
}

// knowsContract reports whether path is the contract of a stage the
// workspace listed when it was opened.
func (st *wsState) knowsContract(path string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.cur == nil || st.stale {
		return true // it will be opened afresh anyway
	}
	for _, stg := range st.cur.ws.Stages {
		if stg.Contract == path {
			return true
		}
	}
	return path == st.cur.ws.Abs(workspace.RoutingFile)
}

// hold adds a holder of the analysis's opening; release must follow.
func (a *analysis) hold() {
	if a != nil {
		a.o.hold()
	}
}

// release lets go of a hold on the analysis (nil-safe, for an analysis
// a request did not get).
func (a *analysis) release() {
	if a != nil {
		a.o.release()
	}
}
