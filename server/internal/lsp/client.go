package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// client is the editor at the other end of the connection: what it can
// do, and the notifications and requests sent to it. It is safe from any
// goroutine.
type client struct {
	ctx  context.Context // the connection's lifetime
	conn atomic.Pointer[jsonrpc2.Conn]
	log  *slog.Logger

	mu   sync.Mutex
	caps protocol.ClientCapabilities
}

// notify sends a notification to the client.
func (c *client) notify(method string, params any) error {
	conn := c.conn.Load()
	if conn == nil {
		return fmt.Errorf("no client connection")
	}
	return conn.Notify(c.ctx, method, params)
}

// call sends a request to the client and waits for its answer. It must
// never run on the read loop: the answer could not be read until the
// handler returned.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	conn := c.conn.Load()
	if conn == nil {
		return fmt.Errorf("no client connection")
	}
	return conn.Call(ctx, method, params, result)
}

// setCapabilities records what the client said it can do (initialize).
func (c *client) setCapabilities(caps protocol.ClientCapabilities) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.caps = caps
}

// supports reports a client capability through a reader function.
func (c *client) supports(f func(c protocol.ClientCapabilities) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f(c.caps)
}

// refreshLenses asks the client to fetch code lenses again (their state
// and Approve lenses change with the status), when it supports that.
func (c *client) refreshLenses(ctx context.Context) {
	if !c.supports(func(c protocol.ClientCapabilities) bool {
		w := c.Workspace
		return w != nil && w.CodeLens != nil && w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
	}) {
		return
	}
	if err := c.call(ctx, protocol.ServerWorkspaceCodeLensRefresh, nil, nil); err != nil {
		c.log.Info("the client did not refresh code lenses", "err", err)
	}
}
