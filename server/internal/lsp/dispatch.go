package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Error codes of the LSP beyond JSON-RPC's own.
const (
	codeServerNotInitialized = -32002
	codeRequestFailed        = -32803
	codeRequestCancelled     = -32800
)

// inline lists the requests handled on the read loop, in arrival order:
// the lifecycle, whose order matters. Every notification is handled
// inline too (document changes must apply in order); every other request
// runs on its own goroutine so a slow one never holds up the rest.
var inline = map[string]bool{
	"initialize": true,
	"shutdown":   true,
}

// Handle implements jsonrpc2.Handler. It runs on the connection's read
// loop, so it only does quick work itself.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.client.conn.CompareAndSwap(nil, conn)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic recovered", "method", req.Method, "panic", r, "stack", stack())
			if !req.Notif {
				s.replyError(req.ID, jsonrpc2.CodeInternalError, fmt.Sprintf("icm: internal error in %s: %v", req.Method, r))
			}
		}
	}()
	switch req.Method {
	case "$/cancelRequest":
		s.cancelRequest(req)
		return
	case "exit":
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		s.hangUp()
		return
	}
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	if !initialized && req.Method != "initialize" {
		if !req.Notif {
			s.replyError(req.ID, codeServerNotInitialized, fmt.Sprintf("the server is not initialized: send initialize before %s", req.Method))
		}
		return
	}
	if shutdown {
		if !req.Notif {
			s.replyError(req.ID, jsonrpc2.CodeInvalidRequest, fmt.Sprintf("the server is shutting down: %s refused", req.Method))
		}
		return
	}
	if req.Method == notifyDidChangeTrust && req.Notif {
		s.didChangeTrust(req)
		return
	}
	if req.Notif || inline[req.Method] {
		s.dispatch(s.ctx, req)
		return
	}
	rctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	if s.closing {
		// Serve is past the end of the connection and may be waiting on
		// bg: a request read in that moment has no one to answer.
		s.mu.Unlock()
		cancel()
		return
	}
	s.inflight[req.ID] = cancel
	// Added under mu, so every Add happens before Serve's Wait.
	s.bg.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.bg.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, req.ID)
			s.mu.Unlock()
			cancel()
		}()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic recovered", "method", req.Method, "panic", r, "stack", stack())
				s.replyError(req.ID, jsonrpc2.CodeInternalError, fmt.Sprintf("icm: internal error in %s: %v", req.Method, r))
			}
		}()
		s.dispatch(rctx, req)
	}()
}

// dispatch runs one message through glsp's protocol handler and replies.
func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request) {
	if s.opts.BeforeHandle != nil {
		s.opts.BeforeHandle(ctx, req.Method)
	}
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) {
			if err := s.client.notify(method, params); err != nil {
				s.log.Warn("unable to notify the client", "method", method, "err", err)
			}
		},
		// Handlers never call the client themselves (see call); this
		// guards against one that would deadlock the read loop.
		Call: func(method string, _ any, _ any) {
			s.log.Error("a handler tried to call the client from the read loop", "method", method)
		},
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	} else {
		gctx.Params = json.RawMessage("null")
	}
	s.mu.Lock()
	s.reqCtx[gctx] = ctx
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.reqCtx, gctx)
		s.mu.Unlock()
	}()

	result, validMethod, validParams, err := s.handler.Handle(gctx)
	if req.Notif {
		if err != nil || !validParams {
			s.log.Warn("notification not handled", "method", req.Method, "err", err)
		}
		return
	}
	switch {
	case !validMethod:
		s.replyError(req.ID, jsonrpc2.CodeMethodNotFound, fmt.Sprintf("method not supported: %s", req.Method))
	case !validParams:
		msg := fmt.Sprintf("invalid params for %s", req.Method)
		if err != nil {
			msg += ": " + err.Error()
		}
		s.replyError(req.ID, jsonrpc2.CodeInvalidParams, msg)
	case ctx.Err() != nil:
		s.replyError(req.ID, codeRequestCancelled, fmt.Sprintf("%s was cancelled", req.Method))
	case err != nil:
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			if !fault.Classified(err) {
				// Answered as a bug in icm (kind internal, -32803), which
				// the package's tests fail on; a bad request that reaches
				// here is a handler to fix.
				s.log.Warn("a handler's error has no kind", "method", req.Method, "err", err)
			}
			rpcErr = faultReply(err)
		}
		s.reply(req.ID, rpcErr)
	default:
		if c := s.client.conn.Load(); c != nil {
			if err := c.Reply(s.ctx, req.ID, result); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
				s.log.Warn("unable to reply", "method", req.Method, "err", err)
			}
		}
	}
}

// ctxOf returns the context of the request a handler is serving.
func (s *Server) ctxOf(gctx *glsp.Context) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx, ok := s.reqCtx[gctx]; ok {
		return ctx
	}
	return s.ctx
}

// replyError answers a request with an error.
func (s *Server) replyError(id jsonrpc2.ID, code int64, msg string) {
	s.reply(id, &jsonrpc2.Error{Code: code, Message: msg})
}

// reply answers a request with an error reply as it is, data included.
func (s *Server) reply(id jsonrpc2.ID, e *jsonrpc2.Error) {
	c := s.client.conn.Load()
	if c == nil {
		return
	}
	if err := c.ReplyWithError(s.ctx, id, e); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		s.log.Warn("unable to send an error reply", "err", err)
	}
}

// cancelRequest cancels the context of an in-flight request. glsp's
// CancelParams cannot be used: its id type drops the value when decoding.
func (s *Server) cancelRequest(req *jsonrpc2.Request) {
	if req.Params == nil {
		return
	}
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(*req.Params, &p); err != nil {
		s.log.Warn("unreadable $/cancelRequest", "err", err)
		return
	}
	s.mu.Lock()
	cancel := s.inflight[p.ID]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// stack returns the current goroutine's stack for panic logs.
func stack() string { return string(debug.Stack()) }

// protocolHandler assembles glsp's method table. Every method advertised
// in capabilities has a handler, and so do the notifications clients send
// whether or not they are advertised (so they are not answered "method not
// supported"). The lifecycle's are the Server's; every other is a
// function named after its method, in its own file, which request and
// notification hand the request's context and the env.
func (s *Server) protocolHandler() protocol.Handler {
	return protocol.Handler{
		Initialize:  s.initialize,
		Initialized: s.initializedNotification,
		Shutdown:    s.shutdownRequest,
		Exit:        func(*glsp.Context) error { return nil },
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		LogTrace:    func(*glsp.Context, *protocol.LogTraceParams) error { return nil },
		Progress:    func(*glsp.Context, *protocol.ProgressParams) error { return nil },

		// glsp's params type drops the token's value: the handler reads
		// the raw params.
		WindowWorkDoneProgressCancel: func(g *glsp.Context, _ *protocol.WorkDoneProgressCancelParams) error {
			return progressCancel(s.env, g.Params)
		},

		WorkspaceDidChangeWorkspaceFolders: s.didChangeFolders,
		WorkspaceDidChangeConfiguration:    s.didChangeConfiguration,
		WorkspaceDidChangeWatchedFiles:     notification(s, didChangeWatchedFiles),
		WorkspaceSymbol:                    request(s, workspaceSymbol),
		WorkspaceExecuteCommand:            request(s, executeCommand),

		TextDocumentDidOpen:   notification(s, didOpen),
		TextDocumentDidChange: notification(s, didChange),
		TextDocumentDidSave:   notification(s, didSave),
		TextDocumentDidClose:  notification(s, didClose),
		TextDocumentWillSave:  func(*glsp.Context, *protocol.WillSaveTextDocumentParams) error { return nil },

		TextDocumentHover:          request(s, hover),
		TextDocumentCompletion:     request(s, completion),
		TextDocumentDefinition:     request(s, definition),
		TextDocumentDocumentLink:   request(s, documentLink),
		TextDocumentDocumentSymbol: request(s, documentSymbol),
		TextDocumentCodeLens:       request(s, codeLens),
		TextDocumentCodeAction:     request(s, codeAction),
		// config.toml's colours (no TOML grammar is shipped to the editor).
		TextDocumentSemanticTokensFull: request(s, semanticTokensFull),
		// Lenses come complete, but glsp routes codeLens/resolve by the
		// wrong field and would call a nil function: answer it as is.
		CodeLensResolve: func(_ *glsp.Context, l *protocol.CodeLens) (*protocol.CodeLens, error) { return l, nil },
	}
}

// request makes a handler one of glsp's: it gets the request's context
// (which $/cancelRequest cancels) and the env.
func request[P, R any](s *Server, h func(context.Context, *env, P) (R, error)) func(*glsp.Context, P) (R, error) {
	return func(g *glsp.Context, p P) (R, error) { return h(s.ctxOf(g), s.env, p) }
}

// notification makes a notification's handler one of glsp's: it runs on
// the read loop, in arrival order, and must not wait.
func notification[P any](s *Server, h func(*env, P) error) func(*glsp.Context, P) error {
	return func(_ *glsp.Context, p P) error { return h(s.env, p) }
}
