package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// answerRoom is the least room for an answer the model client accepts
// (llm refuses a prompt that leaves less), so a context that does not fit
// the window with this much to spare is reported as it will be refused.
const answerRoom = 256

// wsState is what the server keeps about one workspace: the workspace as
// opened from disk, the latest analysis of it with the editor's buffers
// laid over, and the tool servers it configures. Its analysis goroutine
// runs check.Run (the code behind `icm check`) whenever something the
// workspace reads changes.
type wsState struct {
	s    *Server
	root string

	ctx    context.Context
	cancel context.CancelFunc
	kick   chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	ws      *workspace.Workspace // nil until opened, or when it must be reopened
	openErr error
	reg     tools.Registry
	catalog *tools.Catalog
	listed  map[string][]tools.ToolInfo // tool listings that succeeded, by server
	// unlisted are the latest listing failures by server, and listing
	// the servers being listed for a count (see countTools).
	unlisted map[string]listFailure
	listing  map[string]bool
	window   int           // the model's context window, 0 when unknown
	winKey   string        // host+model the window was asked for
	winDone  chan struct{} // closed when the last window query ended

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

// analysis is one run of the checks over a snapshot of the buffers.
type analysis struct {
	ws     *workspace.Workspace // Files is the snapshot
	snap   *document.Snapshot
	report *check.Report
	window int
	// counts are each stage's first calls counted as the run sends them.
	counts map[string]*promptcount.Stage
}

func newWSState(s *Server, root string) *wsState {
	ctx, cancel := context.WithCancel(s.ctx)
	return &wsState{s: s, root: root, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1), done: make(chan struct{}),
		listed: map[string][]tools.ToolInfo{}, unlisted: map[string]listFailure{}, listing: map[string]bool{}, ready: make(chan struct{})}
}

func (st *wsState) start() {
	st.touch(false)
	go st.loop()
}

func (st *wsState) stop() {
	st.cancel()
	<-st.done
	st.mu.Lock()
	c := st.catalog
	st.mu.Unlock()
	if c != nil {
		c.Wait()
	}
}

// touch asks for a new analysis; reopen also rereads the workspace's
// folders and config (a stage or config.toml changed on disk).
func (st *wsState) touch(reopen bool) {
	st.mu.Lock()
	st.want++
	if reopen {
		st.ws = nil
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

// workspace returns the workspace as opened from disk, opening it again
// when it was marked stale.
func (st *wsState) workspace() (*workspace.Workspace, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ws != nil {
		return st.ws, nil
	}
	ws, err := workspace.Open(st.root, workspace.DiskFiles{})
	if err != nil {
		st.openErr = err
		return nil, err
	}
	// icm's own servers read the model the way runs from the editor do.
	selfEnv := toolbox.SelfEnv(st.s.getenv, toolbox.KeyVars(ws.Config.Model)...)
	if host, model := st.modelSettings(ws); host != "" || model != "" {
		if host != "" {
			selfEnv["OLLAMA_HOST"] = host
		}
		if model != "" {
			selfEnv["ICM_MODEL"] = model
		}
	}
	reg, problems := toolbox.Load(ws, toolbox.Self{Path: st.s.opts.Self, Env: selfEnv})
	for _, p := range problems {
		st.s.log.Info("MCP server configuration", "problem", p.String())
	}
	if st.catalog == nil || !sameRegistry(st.reg, reg) {
		if st.catalog != nil {
			st.catalog.Forget()
		}
		st.catalog = tools.NewCatalog(tools.DefaultOptions(st.root, ws.Config))
		st.listed = map[string][]tools.ToolInfo{}
		st.unlisted = map[string]listFailure{}
	}
	st.ws, st.reg, st.openErr = ws, reg, nil
	return ws, nil
}

func sameRegistry(a, b tools.Registry) bool {
	if len(a) != len(b) {
		return false
	}
	for name, s := range a {
		if o, ok := b[name]; !ok || o.Key() != s.Key() {
			return false
		}
	}
	return true
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
	ws, err := st.workspace()
	if err != nil {
		st.s.log.Warn("unable to open workspace", "root", st.root, "err", err)
		st.finish(epoch, &analysis{snap: snap})
		return
	}
	st.ensureWindow(ws) // started first, so a hover right after the diagnostics can wait for it
	view := *ws
	view.Files = snap
	rep := check.Run(&view, st.checkOptions(ws))
	a := &analysis{ws: &view, snap: snap, report: rep, window: st.windowSize()}
	st.s.pub.publish(st.ctx, batch{owner: st.root, files: st.diagnostics(a)})
	// Counted after the diagnostics are out (an exact count of a stage
	// takes tens of milliseconds; the memo keeps unchanged stages').
	a.counts = st.countStages(st.ctx, &view, rep)
	st.finish(epoch, a)
}

func (st *wsState) finish(epoch uint64, a *analysis) {
	st.mu.Lock()
	st.result, st.have, st.analyzed = a, epoch, true
	close(st.ready)
	st.ready = make(chan struct{})
	st.mu.Unlock()
}

// current returns an analysis that includes every change made to the
// workspace's buffers so far, waiting for one when needed.
func (st *wsState) current(ctx context.Context) (*analysis, error) {
	for {
		st.mu.Lock()
		if st.analyzed && st.have >= st.want && st.result.report != nil {
			a := st.result
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
	if st.files == nil {
		st.files = check.ListFiles(st.root)
	}
	return st.files
}

func (st *wsState) checkOptions(ws *workspace.Workspace) check.Options {
	st.mu.Lock()
	defer st.mu.Unlock()
	servers := map[string]bool{}
	for name := range st.reg {
		servers[name] = true
	}
	listed := make(map[string][]string, len(st.listed))
	for server, infos := range st.listed {
		for _, t := range infos {
			listed[server] = append(listed[server], t.Name)
		}
	}
	return check.Options{
		Window:  st.window,
		Reserve: answerRoom,
		Servers: servers,
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
	src, err := os.ReadFile(file)
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

// modelSettings returns the model server address and model name in force.
func (st *wsState) modelSettings(ws *workspace.Workspace) (host, model string) {
	set := st.s.currentSettings()
	host, model = set.OllamaHost, set.Model
	if host == "" {
		host = ws.Config.Model.BaseURL
	}
	if model == "" {
		model = ws.Config.Model.Name
	}
	return host, model
}

// client makes a model client for the workspace.
func (st *wsState) client(ws *workspace.Workspace, extra ...llm.OllamaOption) (llm.Client, string, error) {
	host, model := st.modelSettings(ws)
	if f := st.s.opts.NewClient; f != nil {
		c, err := f(host, model)
		return c, model, err
	}
	opts := []llm.Option{llm.WithModel(model)}
	if host != "" {
		opts = append(opts, llm.WithBaseURL(host))
	}
	opts = append(opts, extra...)
	c, err := llm.FromConfig(ws.Config.Model, st.s.getenv, opts...)
	return c, model, err
}

// awaitWindow waits for a context-window query in flight (a hover shows
// the window, and the first hover usually comes right after opening).
func (st *wsState) awaitWindow(ctx context.Context) {
	st.mu.Lock()
	done := st.winDone
	st.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (st *wsState) windowSize() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.window
}

// ensureWindow asks the model server, once per address and model and
// off the analysis path, how large the model's context window is; the
// answer triggers a new analysis so over-window contexts get flagged.
func (st *wsState) ensureWindow(ws *workspace.Workspace) {
	if p := ws.Config.Model.Provider; p != "" && p != "ollama" {
		st.mu.Lock()
		st.window = ws.Config.Model.ContextLength
		st.mu.Unlock()
		return
	}
	host, model := st.modelSettings(ws)
	key := host + "\x00" + model
	st.mu.Lock()
	if model == "" || st.winKey == key {
		st.mu.Unlock()
		return
	}
	st.winKey = key
	done := make(chan struct{})
	st.winDone = done
	st.mu.Unlock()
	st.s.goBackground(func() {
		defer close(done)
		c, _, err := st.client(ws, llm.WithRetry(2*time.Second, 2))
		if err != nil {
			st.s.log.Info("no model server for the context window", "err", err)
			return
		}
		ctx, cancel := context.WithTimeout(st.ctx, 10*time.Second)
		defer cancel()
		info, err := c.Show(ctx, model)
		if err != nil {
			st.s.log.Info("unable to learn the model's context window", "model", model, "err", err)
			return
		}
		st.s.log.Info("context window", "model", model, "tokens", info.ContextLength)
		st.mu.Lock()
		changed := st.window != info.ContextLength
		st.window = info.ContextLength
		st.mu.Unlock()
		if changed {
			st.touch(false)
		}
	})
}

// toolsOf lists a server's tools through the workspace's catalog (which
// starts the server once and keeps the listing), and re-runs the checks
// when a listing arrives so tool names are checked too.
func (st *wsState) toolsOf(ctx context.Context, server string) ([]tools.ToolInfo, error) {
	if _, err := st.workspace(); err != nil {
		return nil, err
	}
	st.mu.Lock()
	if infos, ok := st.listed[server]; ok {
		st.mu.Unlock()
		return infos, nil
	}
	c, reg := st.catalog, st.reg
	st.mu.Unlock()
	infos, err := c.ListTools(ctx, reg, server)
	if err != nil {
		if ctx.Err() == nil {
			// Kept for the counts, which name the servers whose
			// definitions they leave out and why.
			st.mu.Lock()
			_, had := st.unlisted[server]
			st.unlisted[server] = listFailure{err: err, at: time.Now()}
			st.mu.Unlock()
			if !had {
				st.touch(false)
			}
		}
		return nil, err
	}
	st.mu.Lock()
	delete(st.unlisted, server)
	_, had := st.listed[server]
	st.listed[server] = infos
	st.mu.Unlock()
	if !had {
		st.touch(false)
	}
	return infos, nil
}

// registry returns the configured tool servers.
func (st *wsState) registry() tools.Registry {
	if _, err := st.workspace(); err != nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.reg
}

// knowsContract reports whether path is the contract of a stage the
// workspace listed when it was opened.
func (st *wsState) knowsContract(path string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ws == nil {
		return true // it will be opened afresh anyway
	}
	for _, stg := range st.ws.Stages {
		if stg.Contract == path {
			return true
		}
	}
	return path == st.ws.Abs(workspace.RoutingFile)
}
