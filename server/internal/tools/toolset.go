package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
)

// Toolset is the set of tools one stage may use, with the servers behind
// them running. It is safe for concurrent calls (For each items may share
// one). Close it when the stage is done.
type Toolset struct {
	opts  Options
	conns map[string]*conn
	tools []llm.Tool
	// byName maps exposed names to tools.
	byName map[string]*offeredTool
	names  []string

	closeOnce sync.Once
	closeErr  error
}

type offeredTool struct {
	info   report.ToolInfo
	conn   *conn
	schema *argSchema
}

// Open starts the servers allow names (and only those), in parallel, and
// gathers the tools it permits. allow maps a server name to tool names; a
// nil list or ["*"] permits every tool. An empty allow gives a toolset
// without tools. A server that is not configured, fails to start, or lacks a
// named tool is an error naming it (all such problems are reported at once),
// and nothing is left running.
func Open(ctx context.Context, reg Registry, allow map[string][]string, opts Options) (*Toolset, error) {
	opts = opts.withDefaults()
	s := &Toolset{opts: opts, conns: map[string]*conn{}, byName: map[string]*offeredTool{}}

	names := make([]string, 0, len(allow))
	var errs []error
	for name := range allow {
		if _, ok := reg[name]; !ok {
			errs = append(errs, fmt.Errorf("the stage names MCP server %q, which is not configured (configured: %s); add it to config.toml [mcp.servers.%s], .vscode/mcp.json or .mcp.json", name, listOrNone(reg.Names()), name))
			continue
		}
		names = append(names, name)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Strings(names)

	type started struct {
		conn  *conn
		tools []report.ToolInfo
		err   error
	}
	results := make([]started, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
			defer cancel()
			c, err := dial(sctx, reg[name], opts)
			if err != nil {
				results[i].err = err
				return
			}
			results[i].conn = c
			results[i].tools, results[i].err = c.listTools(sctx)
		}()
	}
	wg.Wait()

	for i, name := range names {
		r := results[i]
		if r.conn != nil {
			s.conns[name] = r.conn
		}
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		if err := s.add(r.conn, r.tools, allow[name]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		_ = s.Close()
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// add offers the allowed tools of one server.
func (s *Toolset) add(c *conn, offered []report.ToolInfo, allowed []string) error {
	picked, err := pick(c.server.Name, c.server.Location(), offered, allowed)
	if err != nil {
		return err
	}
	taken := map[string]bool{}
	for n := range s.byName {
		taken[n] = true
	}
	for _, t := range expose(picked, taken) {
		st := &offeredTool{info: t, conn: c, schema: newArgSchema(t.Name, t.InputSchema)}
		s.byName[t.Exposed] = st
		s.names = append(s.names, t.Exposed)
		s.tools = append(s.tools, definition(t))
	}
	return nil
}

// Tools returns the tools to offer the model, in a stable order.
func (s *Toolset) Tools() []llm.Tool {
	out := make([]llm.Tool, len(s.tools))
	copy(out, s.tools)
	sortTools(out)
	return out
}

// Lookup maps an exposed name back to its server and the server's tool name.
func (s *Toolset) Lookup(exposed string) (report.ToolInfo, bool) {
	t, ok := s.byName[exposed]
	if !ok {
		return report.ToolInfo{}, false
	}
	return t.info, true
}

// Stderr returns the last stderr lines of a stdio server in this toolset.
func (s *Toolset) Stderr(server string) string {
	c, ok := s.conns[server]
	if !ok {
		return ""
	}
	return c.stderrTail()
}

// Call runs one tool call of the model.
//
// What the model did wrong (an unknown tool, arguments that do not fit the
// schema) and what the tool reported (MCP isError, or a JSON-RPC error
// answer) come back as a Result with IsError set and a nil error: the model reads the text and tries
// again. When the server itself fails (it hangs past the deadline, exits,
// the connection breaks) Call returns a *ServerError together with a Result
// whose text is that error, so the caller can record it, show it to the
// model and decide whether the run goes on. A cancelled ctx returns its
// error.
func (s *Toolset) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	start := time.Now()
	res := Result{Name: name}
	t, ok := s.byName[name]
	if !ok {
		res.IsError = true
		res.Text = fmt.Sprintf("unknown tool %s; available: %s", name, listOrNone(s.sortedNames()))
		return s.finish(res, start), nil
	}
	res.Server, res.Tool = t.info.Server, t.info.Name
	if args == nil {
		args = map[string]any{}
	}
	if msg := t.schema.check(name, args); msg != "" {
		res.IsError = true
		res.Text = msg
		return s.finish(res, start), nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	out, err := t.conn.callTool(cctx, t.info.Name, args)
	if err != nil {
		if ctx.Err() != nil {
			return s.finish(res, start), ctx.Err()
		}
		res.IsError = true
		var se *ServerError
		if !errors.As(err, &se) {
			// A JSON-RPC error: the server is fine but refused this call
			// (bad parameters, a failing handler). The model may retry.
			res.Text = fmt.Sprintf("%s failed: %v", name, err)
			return s.finish(res, start), nil
		}
		res.Text = err.Error()
		return s.finish(res, start), err
	}
	res.IsError = out.IsError
	res.Text = renderContent(out)
	if res.IsError && res.Text == "" {
		res.Text = "the tool reported an error without a message"
	}
	return s.finish(res, start), nil
}

func (s *Toolset) finish(r Result, start time.Time) Result {
	r.Duration = time.Since(start)
	r.Size = len(r.Text)
	r.Text, r.Truncated = capText(r.Text, s.opts.MaxResultBytes)
	return r
}

func (s *Toolset) sortedNames() []string {
	out := append([]string(nil), s.names...)
	sort.Strings(out)
	return out
}

// Close stops every server of the toolset (stdin closed, then SIGTERM and
// SIGKILL to each process group) in parallel. It is safe to call twice.
func (s *Toolset) Close() error {
	s.closeOnce.Do(func() {
		var mu sync.Mutex
		var errs []error
		var wg sync.WaitGroup
		for _, c := range s.conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.close(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
