package lsp

import (
	"context"
	"fmt"
	"sync"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// Client commands the output lenses name: the extension runs them itself
// (a diff, a prompt for a note) and calls the server from there.
const (
	clientCompare   = "icm.output.compare"
	clientRerunItem = "icm.output.rerunItem"
)

// outputLenses are the review lenses on a stage's output file: its state
// in words, Approve when it awaits review, Compare with the model's version
// when icm kept one, Re-run; and in a For each output, on each item's
// section, Re-run this item with the item's own state.
func (s *Server) outputLenses(ctx context.Context, dc *docContext) []protocol.CodeLens {
	stg := dc.ws.StageOf(dc.doc.Path)
	if stg == nil || stg.Contract == dc.doc.Path {
		return nil
	}
	src, err := dc.ws.Files.ReadFile(stg.Contract)
	if err != nil {
		return nil
	}
	c := contract.ParseWith(stg.Contract, src, contract.Options{Vars: dc.ws.Vars})
	rel := dc.ws.Rel(dc.doc.Path)
	isOutput := false
	for _, o := range state.OutputPaths(dc.ws, stg, c) {
		if o == rel {
			isOutput = true
		}
	}
	if !isOutput {
		return nil
	}
	row := dc.st.Row(ctx, stg.Name)
	if row == nil {
		return nil
	}
	top := protocol.Range{}
	arg := map[string]any{"workspace": dc.ws.Root, "stage": stg.Name, "path": dc.doc.Path}
	lens := func(rng protocol.Range, title, command string, a map[string]any) protocol.CodeLens {
		return protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: title, Command: command, Arguments: []any{a}}}
	}
	out := []protocol.CodeLens{lens(top, row.Face.Text(), cmdStatus, arg)}
	if row.Status == string(state.Awaiting) {
		out = append(out, lens(top, "✓ Approve", cmdApprove, arg))
	}
	hasModel := dc.o.Session().HasModelVersion(dc.doc.Path)
	if hasModel {
		out = append(out, lens(top, "⇄ Compare with the model's version", clientCompare, arg))
	}
	if row.Status != snapshot.StatusRunning {
		out = append(out, lens(top, "▶ Re-run", cmdRunStage, arg))
	}
	if c.ForEach == nil || !hasModel {
		return out
	}
	spans := dc.o.Session().ItemSpans(dc.doc.Path, string(dc.doc.Text))
	m := dc.doc.Mapper()
	for _, sp := range spans {
		if !sp.Found {
			continue
		}
		pos, err := m.Position(sp.Start)
		if err != nil {
			continue
		}
		at := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(pos.Line)}, End: protocol.Position{Line: protocol.UInteger(pos.Line)}}
		ia := map[string]any{"workspace": dc.ws.Root, "stage": stg.Name, "item": sp.Index, "title": sp.Title}
		// The item's state first, then its action, as the file's own row
		// reads: the first item shares the file's line, and "▶ Re-run |
		// ▶ Re-run this item" side by side left a person guessing which
		// re-ran what.
		out = append(out, lens(at, itemWords(sp, len(spans)), cmdStatus, ia))
		if row.Status != snapshot.StatusRunning {
			out = append(out, lens(at, "▶ Re-run this item", clientRerunItem, ia))
		}
	}
	return out
}

// itemWords is an item's state in its lens: "item 2 of 4 · edited".
func itemWords(sp session.ItemSpan, n int) string {
	words := "as the model wrote it"
	if sp.Edited {
		words = "edited"
	}
	return fmt.Sprintf("item %d of %d · %s", sp.Index, n, words)
}

// statusCache keeps what was last sent of each workspace's status.
type statusCache struct {
	mu sync.Mutex
	m  map[string]*sentStatus
}

// sentStatus is the status last sent for one workspace.
type sentStatus struct {
	// sending is held while a status is made and sent, so statuses reach
	// the client in order.
	sending sync.Mutex
	hash    [32]byte // of the last one, as sent
}

func (c *statusCache) entry(root string) *sentStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*sentStatus{}
	}
	e, ok := c.m[root]
	if !ok {
		e = &sentStatus{}
		c.m[root] = e
	}
	return e
}

// sent records that a status whose JSON hashes to h is the last one, and
// reports whether it differs from the one before.
func (c *statusCache) sent(e *sentStatus, h [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := e.hash == h
	e.hash = h
	return !same
}
