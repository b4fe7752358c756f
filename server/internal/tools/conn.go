package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/act"
)

// conn is an initialized connection to one server.
type conn struct {
	server Server
	opts   Options
	client *client.Client
	proc   *proc // nil for HTTP servers
	// cancel ends the connection's lifetime context (the SSE stream).
	cancel context.CancelFunc
	ids    atomic.Int64

	lastOnce sync.Once
	last     string
}

// dial starts (or connects to) a server and initializes it. ctx bounds only
// the start-up; the connection lives until close.
func dial(ctx context.Context, s Server, opts Options) (*conn, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &conn{server: s, opts: opts, cancel: cancel}
	var tr transport.Interface
	switch s.Transport {
	case TransportStdio, "":
		p, err := startProc(life, s, procConfig{dir: opts.Dir, lookupEnv: opts.LookupEnv, ringSize: opts.StderrBytes, exitLinger: opts.exitLinger, reaper: opts.Reaper, permit: opts.Permit})
		if err != nil {
			cancel()
			return nil, &ServerError{Server: s.Name, Kind: FailStart, Err: err}
		}
		c.proc = p
		tr = transport.NewIO(p.stdout, deadlineWriter{f: p.stdin, timeout: opts.CallTimeout}, nil)
	case TransportHTTP:
		h, err := transport.NewStreamableHTTP(s.URL, transport.WithHTTPHeaders(s.Headers), transport.WithHTTPLogger(opts.Logger),
			transport.WithHTTPBasicClient(act.HTTPClient(opts.Permit, contact(s), act.HTTP{})))
		if err != nil {
			cancel()
			return nil, &ServerError{Server: s.Name, Kind: FailStart, Err: fmt.Errorf("url %q (from %s): %w", s.URL, s.Location(), err)}
		}
		tr = h
	case TransportSSE:
		h, err := transport.NewSSE(s.URL, transport.WithHeaders(s.Headers), transport.WithSSELogger(opts.Logger),
			transport.WithHTTPClient(act.HTTPClient(opts.Permit, contact(s), act.HTTP{})))
		if err != nil {
			cancel()
			return nil, &ServerError{Server: s.Name, Kind: FailStart, Err: fmt.Errorf("url %q (from %s): %w", s.URL, s.Location(), err)}
		}
		tr = h
	default:
		cancel()
		return nil, &ServerError{Server: s.Name, Kind: FailStart, Err: fmt.Errorf("unknown transport %q", s.Transport)}
	}
	return c.initialize(ctx, life, tr)
}

// contact is what connecting to an HTTP server is, for its permit: its
// url, and its entry's url and header names as written.
func contact(s Server) act.Action {
	w := s.named()
	headers := make([]string, 0, len(w.Headers))
	for k := range w.Headers {
		headers = append(headers, k)
	}
	sort.Strings(headers)
	return act.Action{Kind: act.Contact, URL: s.URL, Named: act.Named{Address: w.URL, Headers: headers}}
}

// initialize starts the MCP client over tr and sends initialize; on
// failure the connection is closed.
func (c *conn) initialize(ctx, life context.Context, tr transport.Interface) (*conn, error) {
	opts := c.opts
	c.client = client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.client.Start(life); err != nil {
		fail := c.failure(ctx, "", err)
		_ = c.close()
		return nil, fail
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: opts.ClientName, Version: opts.ClientVersion}
	if _, err := c.client.Initialize(ctx, req); err != nil {
		fail := c.failure(ctx, "", err)
		_ = c.close()
		return nil, fail
	}
	return c, nil
}

// listTools asks for the server's tools, following pages. It sends
// tools/list itself rather than through client.ListTools because mcp-go's
// typed Tool keeps only part of the input schema (no "definitions", anyOf,
// oneOf, ...), which would break $ref resolution and weaken the checks.
func (c *conn) listTools(ctx context.Context) ([]report.ToolInfo, error) {
	var out []report.ToolInfo
	cursor := ""
	seen := map[string]bool{}
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		// String ids cannot collide with the client's numeric ones.
		id := mcp.NewRequestId(fmt.Sprintf("icm-list-%d", c.ids.Add(1)))
		resp, err := c.client.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodToolsList), Params: params,
		})
		if err != nil {
			return nil, c.failure(ctx, "", err)
		}
		if resp.Error != nil {
			return nil, &ServerError{Server: c.server.Name, Kind: FailStart, Err: fmt.Errorf("tools/list failed: %s (code %d)", resp.Error.Message, resp.Error.Code)}
		}
		var page struct {
			Tools []struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations struct {
					Title string `json:"title"`
				} `json:"annotations"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return nil, &ServerError{Server: c.server.Name, Kind: FailTransport, Err: fmt.Errorf("unreadable tools/list answer: %w", err)}
		}
		for _, t := range page.Tools {
			schema := normalizeSchema(t.InputSchema)
			title := t.Title
			if title == "" {
				title = t.Annotations.Title
			}
			out = append(out, report.ToolInfo{
				Server: c.server.Name, Name: t.Name, Exposed: ExposedName(c.server.Name, t.Name),
				Title: title, Description: t.Description, InputSchema: schema,
			})
		}
		if page.NextCursor == "" {
			return out, nil
		}
		if seen[page.NextCursor] {
			return nil, &ServerError{Server: c.server.Name, Kind: FailTransport, Err: fmt.Errorf("tools/list repeats cursor %q", page.NextCursor)}
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// callTool runs one call; a non-nil error is a *ServerError or the
// caller's context error.
func (c *conn) callTool(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	if err := c.down(tool); err != nil {
		return nil, err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.client.CallTool(ctx, req)
	if err != nil {
		return nil, c.failure(ctx, tool, err)
	}
	return res, nil
}

// down fails fast when the server process is already gone.
func (c *conn) down(tool string) error {
	if c.proc == nil || !c.proc.hasExited() {
		return nil
	}
	return &ServerError{Server: c.server.Name, Tool: tool, Kind: FailExited, Status: c.proc.exitStatus(), Stderr: c.lastWords()}
}

// failure turns an error from mcp-go into a ServerError that says what
// happened to the server. Errors the server sent as JSON-RPC errors are
// returned as they are: the server is fine, the request was not.
func (c *conn) failure(ctx context.Context, tool string, err error) error {
	var te *transport.Error
	isTransport := errors.As(err, &te) || errors.Is(err, transport.ErrTransportClosed)
	if c.proc != nil && isTransport && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The process may be exiting right now; its status makes the
		// message, so give the reaper a moment.
		wait(c.proc.exited, c.opts.ShutdownGrace)
		if c.proc.hasExited() {
			return &ServerError{Server: c.server.Name, Tool: tool, Kind: FailExited, Status: c.proc.exitStatus(), Stderr: c.lastWords(), Err: err}
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		timeout := c.opts.CallTimeout
		if tool == "" {
			timeout = c.opts.StartTimeout
		}
		return &ServerError{Server: c.server.Name, Tool: tool, Kind: FailTimeout, Timeout: timeout, Stderr: c.stderrTail(), Err: err}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("call to MCP server %q cancelled: %w", c.server.Name, ctx.Err())
	}
	if !isTransport {
		return err
	}
	kind := FailTransport
	if tool == "" {
		kind = FailStart
	}
	if c.proc == nil {
		err = fmt.Errorf("%s (from %s): %w", c.server.URL, c.server.Location(), err)
	}
	return &ServerError{Server: c.server.Name, Tool: tool, Kind: kind, Stderr: c.stderrTail(), Err: err}
}

func (c *conn) stderrTail() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.stderr.Tail(c.opts.StderrLines, 300)
}

// deadlineWriter bounds every write to a server's stdin. mcp-go writes
// requests without a context, so a server that stops reading its stdin would
// otherwise block that write, and every later call, for ever.
type deadlineWriter struct {
	f       *os.File
	timeout time.Duration
}

func (w deadlineWriter) Write(p []byte) (int, error) {
	_ = w.f.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.f.Write(p)
}

func (w deadlineWriter) Close() error { return w.f.Close() }

// lastWords is the stderr tail of a server that exited. Its final lines
// may still be in the pipe when the exit is noticed, so the first caller
// waits briefly for the drain to finish (a grandchild holding stderr open
// would stop it from ever finishing); the answer is then kept.
func (c *conn) lastWords() string {
	c.lastOnce.Do(func() {
		wait(c.proc.stderrDone, c.opts.exitLinger)
		c.last = c.stderrTail()
	})
	return c.last
}

// close ends the connection and, for stdio, the process group.
func (c *conn) close() error {
	var err error
	if c.client != nil {
		// For stdio this closes the child's stdin; the process is then
		// stopped below, which mcp-go's NewIO transport does not do.
		_ = c.client.Close()
	}
	if c.proc != nil {
		err = c.proc.stop(c.opts.ShutdownGrace)
	}
	c.cancel()
	return err
}
