package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/promptcount"
)

// probeToolsDeadline bounds listing a stage's tool servers for a probe's
// count: each is started, asked for its tools and stopped.
const probeToolsDeadline = 10 * time.Second

// ProbeCount counts a probed stage's first calls as the run would send
// them: exact with the model's own files when they are here, else
// estimated; the tool definitions are the ones the stage's servers list
// (started within a deadline; a server that cannot be listed is left out
// and named). nil when the stage cannot be counted.
func (s *Session) ProbeCount(ctx context.Context, pr *Probe) *promptcount.Stage {
	list := s.StartingLister(probeToolsDeadline)
	ctx, cancel := context.WithTimeout(ctx, probeToolsDeadline+5*time.Second)
	defer cancel()
	n, err := s.CountProbe(ctx, pr, list)
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
		return nil, fmt.Errorf("unable to write the probe as JSON: %w", err)
	}
	return b.Bytes(), nil
}
