// Package lsptest is a fake editor for testing icm's language server end to
// end: it talks JSON-RPC over a pipe (or a process's stdio) like a real
// client, keeps buffers and versions, answers the server's requests, and
// records every notification. Tests express what they expect as conditions
// awaited on those notifications, never as sleeps:
//
//	ed := lsptest.Start(t, lsptest.Config{Root: dir})
//	ed.Open("pipeline/01-scope/CONTEXT.md")
//	ed.Edit("pipeline/01-scope/CONTEXT.md", "input.md", "missing.md")
//	ed.AwaitDiagnostics("pipeline/01-scope/CONTEXT.md", lsptest.HasCode("input-missing"))
package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/lsp"
)

// Timeout bounds every wait, so a broken server fails a test instead of
// hanging it. It never decides a test that works: expectations are awaited
// on notifications.
var Timeout = 60 * time.Second

// Config describes the editor session.
type Config struct {
	// Root is the folder the editor opens (a workspace or a folder holding
	// some); relative paths in the editor's methods are relative to it.
	Root string
	// Options configure the in-process server (Start only).
	Options lsp.Options
	// InitOptions are sent as initializationOptions.
	InitOptions map[string]any
	// Capabilities replace the default client capabilities (which claim
	// progress, showDocument, file watching and file creation).
	Capabilities map[string]any
}

// Diagnostic is a published diagnostic as the client reads it.
type Diagnostic struct {
	Range    protocol.Range    `json:"range"`
	Severity int               `json:"severity"`
	Code     string            `json:"code"`
	Source   string            `json:"source"`
	Message  string            `json:"message"`
	Data     map[string]string `json:"data"`
}

// Notification is one message the server sent without an id (or a request
// it made of the client).
type Notification struct {
	Method string
	Params json.RawMessage
}

// Editor is a fake LSP client.
type Editor struct {
	t    testing.TB
	cfg  Config
	conn *jsonrpc2.Conn
	wire *wire
	ctx  context.Context
	exit chan int

	mu      sync.Mutex
	bufs    map[string]*buffer
	diags   map[string][]Diagnostic // by path
	diagVer map[string]int          // how many publishes per path
	notes   []Notification
	changed chan struct{}
	// initResult is the server's answer to initialize.
	initResult json.RawMessage
}

type buffer struct {
	uri     string
	version int32
	text    []byte
}

// Start runs an in-process server over a pipe and initializes it.
func Start(t testing.TB, cfg Config) *Editor {
	t.Helper()
	client, server := net.Pipe()
	exit := make(chan int, 1)
	srv := lsp.New(withLog(t, cfg.Options))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { exit <- srv.Serve(ctx, server) }()
	ed := Connect(t, client, cfg)
	ed.exit = exit
	t.Cleanup(func() {
		ed.hangUp()
		cancel()
		select {
		case <-exit:
		case <-time.After(Timeout):
			t.Errorf("the language server did not stop within %s of the connection closing", Timeout)
		}
	})
	ed.Initialize()
	return ed
}

func withLog(t testing.TB, o lsp.Options) lsp.Options {
	if o.Log == nil {
		o.Log = testWriter{t}
	}
	if o.Version == "" {
		o.Version = "test"
	}
	if o.Self == "" {
		// icm's own MCP servers would otherwise be the test binary,
		// which must never be started as one (it would run the tests
		// again): here they fail to start unless a test builds icm.
		o.Self = filepath.Join(t.TempDir(), "icm-not-built")
	}
	return o
}

// testWriter sends server logs to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Connect makes an editor on an existing stream (a pipe to an `icm lsp`
// process, say). Call Initialize before anything else.
func Connect(t testing.TB, rwc io.ReadWriteCloser, cfg Config) *Editor {
	t.Helper()
	ed := &Editor{t: t, cfg: cfg, ctx: context.Background(), bufs: map[string]*buffer{}, diags: map[string][]Diagnostic{},
		diagVer: map[string]int{}, changed: make(chan struct{}), wire: &wire{ReadWriteCloser: rwc}}
	ed.conn = jsonrpc2.NewConn(ed.ctx, jsonrpc2.NewBufferedStream(ed.wire, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(ed.handle),
		jsonrpc2.SetLogger(loggerFunc(func(format string, v ...any) { t.Logf("client: "+format, v...) })))
	return ed
}

// hangUp ends the session from the client's side by closing the wire.
// The jsonrpc2.Conn is not closed from here: v0.2.0 closes its waiting
// calls' channels on Close but keeps them registered, so an answer its
// read loop was delivering at that moment would be sent on a closed
// channel and panic. Its read loop, seeing the wire end, closes it.
func (e *Editor) hangUp() { _ = e.wire.Close() }

// wire is the client's transport: once closed, reads end at once with
// io.EOF (a plain end, not a protocol error in the log).
type wire struct {
	io.ReadWriteCloser
	closed atomic.Bool
}

func (w *wire) Read(p []byte) (int, error) {
	n, err := w.ReadWriteCloser.Read(p)
	if w.closed.Load() {
		return 0, io.EOF
	}
	return n, err
}

func (w *wire) Close() error {
	if w.closed.Swap(true) {
		return nil
	}
	return w.ReadWriteCloser.Close()
}

type loggerFunc func(string, ...any)

func (f loggerFunc) Printf(format string, v ...any) { f(format, v...) }

// DefaultCapabilities are what the fake editor claims unless told otherwise.
func DefaultCapabilities() map[string]any {
	return map[string]any{
		"window": map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}},
		"workspace": map[string]any{
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"workspaceEdit":         map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}},
			"workspaceFolders":      true,
			"codeLens":              map[string]any{"refreshSupport": true},
		},
	}
}

// Initialize sends initialize and initialized.
func (e *Editor) Initialize() json.RawMessage {
	e.t.Helper()
	caps := e.cfg.Capabilities
	if caps == nil {
		caps = DefaultCapabilities()
	}
	params := map[string]any{"processId": nil, "rootUri": URI(e.cfg.Root), "capabilities": caps,
		"workspaceFolders": []map[string]any{{"uri": URI(e.cfg.Root), "name": filepath.Base(e.cfg.Root)}}}
	if e.cfg.InitOptions != nil {
		params["initializationOptions"] = e.cfg.InitOptions
	}
	var res json.RawMessage
	if err := e.Call("initialize", params, &res); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.mu.Lock()
	e.initResult = res
	e.mu.Unlock()
	e.Notify("initialized", map[string]any{})
	return res
}

// InitializeResult returns the server's answer to initialize.
func (e *Editor) InitializeResult() json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.initResult
}

// handle answers the server's requests and records its notifications.
func (e *Editor) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	e.mu.Lock()
	e.notes = append(e.notes, Notification{Method: req.Method, Params: params})
	if req.Method == "textDocument/publishDiagnostics" {
		var p struct {
			URI         string       `json:"uri"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if err := json.Unmarshal(params, &p); err == nil {
			if path, err := PathOf(p.URI); err == nil {
				e.diags[path] = p.Diagnostics
				e.diagVer[path]++
			}
		}
	}
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
	switch req.Method {
	case "window/showDocument":
		return map[string]bool{"success": true}, nil
	case "workspace/configuration":
		return []any{}, nil
	case "workspace/applyEdit":
		return map[string]bool{"applied": false}, nil
	}
	return nil, nil
}

// Await waits until cond holds, checking it after every message from the
// server; it fails the test with what when the server falls silent.
func (e *Editor) Await(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			e.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Abs returns the absolute path of a path relative to the root.
func (e *Editor) Abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.cfg.Root, filepath.FromSlash(p))
}

// URI turns an absolute path into a file URI.
func URI(path string) string { return "file://" + filepath.ToSlash(path) }

// PathOf turns a file URI back into a path.
func PathOf(uri string) (string, error) {
	if !strings.HasPrefix(uri, "file://") {
		return "", fmt.Errorf("not a file URI: %s", uri)
	}
	return filepath.FromSlash(strings.TrimPrefix(uri, "file://")), nil
}

// DocURI returns the URI of a path relative to the root.
func (e *Editor) DocURI(p string) string { return URI(e.Abs(p)) }

// Call sends a request and waits for its answer.
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(e.ctx, Timeout)
	defer cancel()
	return e.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(e.ctx, method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// Open opens a file from disk in the editor.
func (e *Editor) Open(p string) {
	e.t.Helper()
	text, err := os.ReadFile(e.Abs(p))
	if err != nil {
		e.t.Fatal(err)
	}
	e.OpenText(p, string(text))
}

// OpenText opens a buffer with the given text (the file need not exist).
func (e *Editor) OpenText(p, text string) {
	e.t.Helper()
	b := &buffer{uri: e.DocURI(p), version: 1, text: []byte(text)}
	e.mu.Lock()
	e.bufs[e.Abs(p)] = b
	e.mu.Unlock()
	e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": b.uri, "languageId": "markdown", "version": 1, "text": text}})
}

func (e *Editor) buf(p string) *buffer {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.bufs[e.Abs(p)]
	if !ok {
		e.t.Fatalf("%s is not open", p)
	}
	return b
}

// Text returns a buffer's text.
func (e *Editor) Text(p string) string {
	e.t.Helper()
	return string(e.buf(p).text)
}

// Edit replaces the first occurrence of old in the buffer with new, sent
// as an incremental change with UTF-16 positions.
func (e *Editor) Edit(p, old, new string) {
	e.t.Helper()
	b := e.buf(p)
	i := strings.Index(string(b.text), old)
	if i < 0 {
		e.t.Fatalf("%s does not contain %q", p, old)
	}
	m := document.NewMapper(b.text)
	start, err := m.Position(i)
	if err != nil {
		e.t.Fatal(err)
	}
	end, err := m.Position(i + len(old))
	if err != nil {
		e.t.Fatal(err)
	}
	next := string(b.text[:i]) + new + string(b.text[i+len(old):])
	e.change(p, b, next, map[string]any{"range": map[string]any{"start": start, "end": end}, "text": new})
}

// SetText replaces the whole buffer.
func (e *Editor) SetText(p, text string) {
	e.t.Helper()
	e.change(p, e.buf(p), text, map[string]any{"text": text})
}

func (e *Editor) change(p string, b *buffer, next string, ev map[string]any) {
	e.mu.Lock()
	b.version++
	b.text = []byte(next)
	v := b.version
	e.mu.Unlock()
	e.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": b.uri, "version": v}, "contentChanges": []any{ev}})
}

// Save writes the buffer to disk and sends didSave.
func (e *Editor) Save(p string) {
	e.t.Helper()
	b := e.buf(p)
	if err := os.WriteFile(e.Abs(p), b.text, 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
}

// Close closes a buffer.
func (e *Editor) Close(p string) {
	e.t.Helper()
	b := e.buf(p)
	e.mu.Lock()
	delete(e.bufs, e.Abs(p))
	e.mu.Unlock()
	e.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
}

// File change types of workspace/didChangeWatchedFiles.
const (
	Created = 1
	Changed = 2
	Deleted = 3
)

// FilesChanged tells the server that files changed on disk, as a client
// watching files for it does.
func (e *Editor) FilesChanged(kind int, paths ...string) {
	e.t.Helper()
	var changes []map[string]any
	for _, p := range paths {
		changes = append(changes, map[string]any{"uri": e.DocURI(p), "type": kind})
	}
	e.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
}

// Pos returns the position of the first occurrence of sub in the buffer
// (plus delta bytes), in UTF-16 columns.
func (e *Editor) Pos(p, sub string, delta int) protocol.Position {
	e.t.Helper()
	b := e.buf(p)
	i := strings.Index(string(b.text), sub)
	if i < 0 {
		e.t.Fatalf("%s does not contain %q", p, sub)
	}
	pos, err := document.NewMapper(b.text).Position(i + delta)
	if err != nil {
		e.t.Fatal(err)
	}
	return protocol.Position{Line: protocol.UInteger(pos.Line), Character: protocol.UInteger(pos.Character)}
}

// Diagnostics returns the diagnostics last published for a file.
func (e *Editor) Diagnostics(p string) ([]Diagnostic, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.diags[e.Abs(p)]
	return d, ok
}

// DiagnosedFiles counts the files the server has published diagnostics for.
func (e *Editor) DiagnosedFiles() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.diags)
}

// AwaitDiagnostics waits until the diagnostics published for a file
// satisfy cond, and returns them.
func (e *Editor) AwaitDiagnostics(p string, what string, cond func([]Diagnostic) bool) []Diagnostic {
	e.t.Helper()
	var got []Diagnostic
	e.Await(fmt.Sprintf("diagnostics of %s: %s", p, what), func() bool {
		d, ok := e.Diagnostics(p)
		got = d
		return ok && cond(d)
	})
	return got
}

// HasCode is true when a diagnostic has the code.
func HasCode(code string) func([]Diagnostic) bool {
	return func(ds []Diagnostic) bool {
		for _, d := range ds {
			if d.Code == code {
				return true
			}
		}
		return false
	}
}

// None is true for an empty list (a clean or cleared file).
func None(ds []Diagnostic) bool { return len(ds) == 0 }

// Notifications returns the params of every notification (or server
// request) with the method, in arrival order.
func (e *Editor) Notifications(method string) []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []json.RawMessage
	for _, n := range e.notes {
		if n.Method == method {
			out = append(out, n.Params)
		}
	}
	return out
}

// AllNotifications returns every notification (and server request) so
// far, in arrival order, for tests of what comes before what.
func (e *Editor) AllNotifications() []Notification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Notification(nil), e.notes...)
}

// AwaitNotification waits for a notification with the method whose params
// satisfy cond (nil: any) and returns its params.
func (e *Editor) AwaitNotification(method, what string, cond func(json.RawMessage) bool) json.RawMessage {
	e.t.Helper()
	var got json.RawMessage
	e.Await(method+": "+what, func() bool {
		for _, n := range e.Notifications(method) {
			if cond == nil || cond(n) {
				got = n
				return true
			}
		}
		return false
	})
	return got
}

// Hover asks for the hover at a position and returns its Markdown ("" when
// there is none).
func (e *Editor) Hover(p string, pos protocol.Position) (string, error) {
	var res *struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	if err := e.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": e.DocURI(p)}, "position": pos}, &res); err != nil {
		return "", err
	}
	if res == nil {
		return "", nil
	}
	return res.Contents.Value, nil
}

// ExecuteCommand runs a server command with one object argument.
func (e *Editor) ExecuteCommand(command string, arg any) (json.RawMessage, error) {
	var res json.RawMessage
	err := e.Call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, &res)
	return res, err
}

// ReplyError is an error reply as the server sent it: code, message and
// data (icm's {kind, stage, hint, location, actions}).
type ReplyError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// AsReplyError returns the error reply err carries; false for any other
// error (a closed connection).
func AsReplyError(err error) (ReplyError, bool) {
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		return ReplyError{}, false
	}
	r := ReplyError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		r.Data = *e.Data
	}
	return r, true
}

// TextDocumentCall sends a request whose params are the document and
// extra fields (position, range, context...).
func (e *Editor) TextDocumentCall(method, p string, extra map[string]any, result any) error {
	params := map[string]any{"textDocument": map[string]any{"uri": e.DocURI(p)}}
	for k, v := range extra {
		params[k] = v
	}
	return e.Call(method, params, result)
}

// Shutdown sends shutdown and exit and returns the server's exit code
// (in-process servers only).
func (e *Editor) Shutdown() int {
	e.t.Helper()
	if err := e.Call("shutdown", nil, nil); err != nil {
		e.t.Fatalf("shutdown: %v", err)
	}
	_ = e.conn.Notify(e.ctx, "exit", nil)
	return e.ExitCode()
}

// ExitCode waits for the in-process server to stop and returns its code.
func (e *Editor) ExitCode() int {
	e.t.Helper()
	select {
	case code := <-e.exit:
		e.exit <- code // keep it for the cleanup
		return code
	case <-time.After(Timeout):
		e.t.Fatalf("the server did not exit")
		return -1
	}
}
