package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
)

// Catalog lists the tools of configured servers for the editor (hover,
// completion of ## Tools lines). Each server configuration is started once
// and its listing kept; a failure is kept for ErrorTTL so a broken server is
// not restarted on every keystroke. Concurrent requests for the same server
// share one start.
type Catalog struct {
	opts Options
	// ErrorTTL is how long a failed listing is remembered (default 30s).
	ErrorTTL time.Duration
	now      func() time.Time

	mu      sync.Mutex
	entries map[string]*catalogEntry
	filling sync.WaitGroup
}

type catalogEntry struct {
	done  chan struct{}
	tools []report.ToolInfo
	err   error
	at    time.Time
}

// NewCatalog returns an empty catalog that starts servers with opts.
func NewCatalog(opts Options) *Catalog {
	return &Catalog{opts: opts.withDefaults(), ErrorTTL: 30 * time.Second, now: time.Now, entries: map[string]*catalogEntry{}}
}

// ListTools returns the tools server offers, starting it only if this
// configuration of it has not been listed yet. ctx bounds the wait, not the
// listing, which other callers may be waiting for too.
func (c *Catalog) ListTools(ctx context.Context, reg Registry, server string) ([]report.ToolInfo, error) {
	s, ok := reg[server]
	if !ok {
		return nil, fault.NotFound(fmt.Sprintf("MCP server %q is not configured (configured: %s)", server, listOrNone(reg.Names())), "name a server the workspace configures")
	}
	key := s.Key()
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		select {
		case <-e.done:
			if e.err != nil && c.now().Sub(e.at) > c.ErrorTTL {
				ok = false
			}
		default:
		}
	}
	if !ok {
		e = &catalogEntry{done: make(chan struct{})}
		c.entries[key] = e
		c.filling.Add(1)
		go c.fill(e, s, c.opts)
	}
	c.mu.Unlock()

	select {
	case <-e.done:
		return append([]report.ToolInfo(nil), e.tools...), e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SetPermit makes p the permit the servers the catalog starts from now
// on ask (a new session that takes the catalog over gives its own).
func (c *Catalog) SetPermit(p act.Permit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.Permit = p
}

// fill starts the server with opts, lists its tools and stops it.
func (c *Catalog) fill(e *catalogEntry, s Server, opts Options) {
	defer c.filling.Done()
	defer close(e.done)
	ctx, cancel := context.WithTimeout(context.Background(), opts.StartTimeout)
	defer cancel()
	conn, err := dial(ctx, s, opts)
	if err == nil {
		e.tools, err = conn.listTools(ctx)
		if cerr := conn.close(); err == nil {
			err = cerr
		}
	}
	e.err = err
	e.at = c.now()
}

// Forget drops every remembered listing, for when the configuration files
// change or the person asks for a refresh.
func (c *Catalog) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		select {
		case <-e.done:
			delete(c.entries, k)
		default: // still filling; its callers wait on it
		}
	}
}

// Wait returns once no listing is in progress, so no server the catalog
// started is still running (call it on shutdown).
func (c *Catalog) Wait() {
	c.filling.Wait()
}
