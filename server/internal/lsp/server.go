// Package lsp is icm's language server: an adapter between LSP 3.16 and
// the answers package snapshot gives. What the server knows of the
// editor's workspaces lives in package snapshot, which knows nothing of
// the protocol: the open buffers; each workspace's immutable snapshots,
// one per change (`icm check` over the buffers laid on the disk, the
// counts, the model's window and installed models, the tool listings);
// and the stage and review states, read from the disk when asked. Every
// operation that touches models, tools, runs, stage tests or history goes
// through a session (package session): runs, approvals, probes, model
// listings and pulls, test runs, the run history and the model's version
// of an output.
//
// Here, a *Server keeps the connection's lifecycle (initialize, shutdown,
// exit, settings, workspace folders: lifecycle.go; the editor's trust:
// trust.go) and dispatches each message (dispatch.go). Every other method
// has a function named after it (hover, completion, codeLens, codeAction,
// definition and documentLink, documentSymbol and workspaceSymbol,
// executeCommand, didOpen and the other text synchronisation
// notifications, didChangeWatchedFiles): it takes the request's context
// and an env, places the document or finds the workspace, asks the
// snapshot (or, for a command, the session), and converts the answer to
// the protocol's types (positions through package document's mapper,
// convert.go). Every error is answered as a fault of its kind (JSON-RPC
// code and data, faults.go).
//
// The wire is served by sourcegraph/jsonrpc2 (the library glsp is built
// on) with glsp's protocol types and method dispatch. glsp's own server
// loop is not used: it reads and handles one message at a time with no
// panic recovery and no cancellation, and any malformed frame ends the
// session. Here (dispatch.go) notifications and document changes are
// handled in order on the read loop, requests run on goroutines with a
// context that $/cancelRequest cancels, every handler recovers panics into
// an error reply, and frames that cannot be read are answered and skipped
// (stream.go).
package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Options configure a language server.
type Options struct {
	// Version is icm's version, reported in serverInfo.
	Version string
	// Log receives the server's log lines (stderr; never stdout, which
	// carries the protocol).
	Log io.Writer
	// Getenv reads the environment (OLLAMA_HOST); os.Getenv when nil.
	Getenv func(string) string
	// Debounce is how long analysis waits after a change for more changes.
	// Zero analyses at once; changes that arrive while an analysis runs are
	// folded into one follow-up analysis either way.
	Debounce time.Duration
	// Self is the icm executable that `command = "icm"` MCP servers run;
	// empty means this process's executable.
	Self string
	// BeforeHandle, when set, runs before every handler with the method's
	// name and the request's context (tests inject panics and slowness).
	BeforeHandle func(ctx context.Context, method string)
}

// Settings are what a client may set in initializationOptions or
// workspace/didChangeConfiguration ({"settings": {"icm": {...}}}). Each
// message carries the whole set: a key left out or empty is not set, and
// the next source decides (session's precedence).
type Settings struct {
	OllamaHost string `json:"ollamaHost,omitempty"`
	Model      string `json:"model,omitempty"`
	Gate       string `json:"gate,omitempty"`
	// WorkspaceScoped names the settings above whose value the editor
	// took from the workspace's own settings (VS Code's workspace or
	// folder scope) rather than the person's: "ollamaHost". Such a
	// server is one the workspace names, used only once it is trusted.
	WorkspaceScoped []string `json:"workspaceScoped,omitempty"`
}

// scoped reports whether the setting key came from the workspace.
func (n Settings) scoped(key string) bool {
	for _, k := range n.WorkspaceScoped {
		if k == key {
			return true
		}
	}
	return false
}

// Server is one language server connection: its lifecycle (initialize,
// shutdown, exit, the settings and the editor's trust, lifecycle.go and
// trust.go) and the dispatch of every message to its handler
// (dispatch.go). The handlers are functions named after their methods,
// one file each; what they work with is an env.
type Server struct {
	opts    Options
	log     *slog.Logger
	handler protocol.Handler
	// sink is where log lines go (stderr, or the client's log).
	sink *logSink
	// counting loads each local model's tokenizer once for the
	// connection, and keeps what model servers said about counting
	// across the sessions it opens (one per workspace opening) and the
	// analyses (each counts every stage).
	counting *session.Counting

	ctx    context.Context // the connection's lifetime
	cancel context.CancelFunc
	// stream is the connection's transport; hangUp closes it.
	stream *frameStream
	client *client
	// bg tracks the goroutines the server starts, requests' included, so
	// Serve returns only once they are done.
	bg  *group
	pub *publisher
	env *env

	mu          sync.Mutex
	settings    Settings
	folders     []string
	initialized bool
	shutdown    bool
	exited      bool
	// closing is set once the connection has ended: no request
	// goroutine starts after it (Serve is waiting for them).
	closing  bool
	inflight map[jsonrpc2.ID]context.CancelFunc
	reqCtx   map[*glsp.Context]context.Context

	// restricted is the editor's Restricted Mode (trust.go).
	restricted atomic.Bool
}

// New makes a server. Serve it on a stream.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{
		opts:     opts,
		sink:     &logSink{stderr: opts.Log},
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		reqCtx:   map[*glsp.Context]context.Context{},
	}
	s.counting = session.NewCounting(s.getenv)
	s.log = slog.New(slog.NewTextHandler(s.sink, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s.client = &client{log: s.log}
	s.bg = &group{log: s.log}
	s.handler = s.protocolHandler()
	return s
}

// Serve runs the server on rwc until the client sends exit or the stream
// ends, and returns the exit code the LSP specification asks for: 0 after a
// shutdown request, 1 otherwise.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.client.ctx = s.ctx
	s.pub = newPublisher(s.client.notify)
	e := &env{ctx: s.ctx, log: s.log, client: s.client, bg: s.bg, restricted: &s.restricted, pub: s.pub}
	e.set = snapshot.New(s.ctx, snapshot.Options{
		Log: s.log, Getenv: s.getenv, Debounce: s.opts.Debounce, Session: s.newSession, Go: s.bg.Go,
		Publish: func(ctx context.Context, root string, files map[string]snapshot.FileFindings) {
			s.pub.publish(ctx, batch{owner: root, files: diagnosticsOf(files)})
		},
		Running:  func(root string) *snapshot.Running { return e.runs.running(root) },
		Analyzed: e.contextDocsChanged,
	})
	e.runs = newRuns(e)
	s.env = e
	s.bg.wg.Add(1)
	go func() { defer s.bg.wg.Done(); s.pub.run(s.ctx) }()

	s.stream = newFrameStream(rwc, func(err error) { s.log.Warn("unreadable message answered with an error", "err", err) })
	conn := jsonrpc2.NewConn(s.ctx, s.stream, s, jsonrpc2.SetLogger(slogPrintf{s.log}))
	s.client.conn.CompareAndSwap(nil, conn)
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		s.hangUp()
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	e.runs.wait()
	e.tests.wait()
	e.set.Close()
	s.bg.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return 0
	}
	return 1
}

// hangUp ends the connection by closing its stream. The jsonrpc2.Conn is
// never closed directly: its read loop, seeing the stream end, closes it
// itself, so no answer from the client can be read while the calls
// waiting for one are being closed (see frameStream).
func (s *Server) hangUp() { _ = s.stream.Close() }

// slogPrintf adapts slog to jsonrpc2's Printf logger.
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, v ...any) {
	p.l.Info(fmt.Sprintf(format, v...))
}

// currentSettings returns the settings in force.
func (s *Server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// newSession opens a session over ws with the settings in force.
func (s *Server) newSession(ws *workspace.Workspace) *session.Session {
	set := s.currentSettings()
	return session.Open(ws, session.Options{
		Settings: session.Settings{Model: set.Model, Host: set.OllamaHost, Gate: set.Gate, HostFromWorkspace: set.scoped("ollamaHost")},
		Trust:    session.TrustOptions{Restricted: s.restricted.Load()},
		Getenv:   s.getenv,
		Self:     s.opts.Self,
		Version:  s.opts.Version,
		Warn:     func(msg string) { s.log.Warn(msg) },
		// One for the connection: every session counts.
		Counting: s.counting,
	})
}

// readSettings reads {"icm": {...}} or the bare object from a client
// value. The value replaces the settings: a key it leaves out or sets to
// "" falls back to config.toml at once. A null value (a client that
// offers no settings) keeps them.
func readSettings(old Settings, v any) Settings {
	if v == nil {
		return old
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return old
	}
	var nested struct {
		ICM *Settings `json:"icm"`
	}
	if json.Unmarshal(raw, &nested) == nil && nested.ICM != nil {
		return trimmed(*nested.ICM)
	}
	var flat Settings
	if json.Unmarshal(raw, &flat) == nil {
		return trimmed(flat)
	}
	return old
}

func trimmed(n Settings) Settings {
	return Settings{OllamaHost: strings.TrimSpace(n.OllamaHost), Model: strings.TrimSpace(n.Model), Gate: strings.TrimSpace(n.Gate),
		WorkspaceScoped: n.WorkspaceScoped}
}
