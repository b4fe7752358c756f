package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/promptcount"
)

// probeToolsDeadline bounds listing a stage's tool servers for a probe's
// count: each is started, asked for its tools and stopped.
const probeToolsDeadline = 10 * time.Second

// Probe counts a probed stage's first calls as the run would send
// them: exact with the model's own files when they are here, else
// estimated; the tool definitions are the ones the stage's servers list
// (started within a deadline; a server that cannot be listed is left out
// and named). nil when the stage cannot be counted.
func (cn Counts) Probe(ctx context.Context, pr *Probe) *promptcount.Stage {
	s := cn.s
	list := s.startingLister(probeToolsDeadline)
	ctx, cancel := context.WithTimeout(ctx, probeToolsDeadline+5*time.Second)
	defer cancel()
	n, err := cn.probe(ctx, pr, list)
	if err != nil {
		return nil
	}
	return n
}

// ProbeDocument is a stage's context as `icm probe --json` prints it and
// the workspace MCP server's context resource holds it, byte for byte:
// the assembled texts, their parts with token counts, the context's id
// (what an agent hands back with the outputs it wrote from it) and the
// count of the first call as the server will see it.
type ProbeDocument struct {
	*assemble.Context
	ContextID string             `json:"context_id"`
	Count     *promptcount.Stage `json:"count,omitempty"`
}

// Document is the probe's document with its count (nil: not countable).
func (p *Probe) Document(count *promptcount.Stage) *ProbeDocument {
	return &ProbeDocument{Context: p.Context, ContextID: p.Context.ID(), Count: count}
}

// JSON is the document's one encoding: indented by two spaces, ending in
// a newline.
func (d *ProbeDocument) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fault.From(fmt.Errorf("unable to write the probe as JSON: %w", err))
	}
	return b.Bytes(), nil
}

// probe counts the first call of a probed stage (of its item, when the
// probe picked one) as the server will see it, listing its tool servers
// through list.
func (cn Counts) probe(ctx context.Context, p *Probe, list promptcount.ToolLister) (*promptcount.Stage, error) {
	s := cn.s
	c := p.Contract
	if c.Script != nil {
		return nil, nil // see Counts.Stage
	}
	call := promptcount.CallOf(ctx, s.ws.Config.Model, c, s.opts.Settings.Model, list)
	if p.Options.Item != nil {
		plain := *c
		plain.ForEach = nil
		c = &plain
	}
	return faulted(cn.counter(call.Model, nil).Stage(ctx, p.Workspace, p.Stage, c, p.Options, call))
}
