package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// fileDiagnostics are the diagnostics of one file.
type fileDiagnostics struct {
	URI         string
	Version     *int32
	Diagnostics []protocol.Diagnostic
}

// diagnosticsOf converts an analysis's findings to the diagnostics of
// each file, keyed by URI.
func diagnosticsOf(files map[string]snapshot.FileFindings) map[string]fileDiagnostics {
	out := make(map[string]fileDiagnostics, len(files))
	for _, ff := range files {
		fd := fileDiagnostics{URI: uriOf(ff.Path)}
		if ff.Doc != nil {
			fd.URI = ff.Doc.URI
			v := ff.Doc.Version
			fd.Version = &v
		}
		for _, f := range ff.Findings {
			fd.Diagnostics = append(fd.Diagnostics, toDiagnostic(ff.Mapper, f))
		}
		out[fd.URI] = fd
	}
	return out
}

// batch is everything one analysis of a workspace found, keyed by URI.
// A URI the workspace published before and that is missing from a later
// batch is cleared.
type batch struct {
	owner string
	files map[string]fileDiagnostics
}

// publisher is the one goroutine that sends textDocument/publishDiagnostics.
// It sends a file's diagnostics only when they differ from what the client
// last received, and an empty list to clear a file that has none left.
type publisher struct {
	in     chan batch
	notify func(method string, params any) error
	// last maps URI to the hash of what was last sent; owned maps an
	// owner to the URIs it published.
	last  map[string][32]byte
	owned map[string]map[string]bool
}

func newPublisher(notify func(string, any) error) *publisher {
	return &publisher{in: make(chan batch, 64), notify: notify, last: map[string][32]byte{}, owned: map[string]map[string]bool{}}
}

// publish queues a batch; it returns at once unless the queue is full.
func (p *publisher) publish(ctx context.Context, b batch) {
	select {
	case p.in <- b:
	case <-ctx.Done():
	}
}

func (p *publisher) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-p.in:
			p.send(b)
		}
	}
}

func (p *publisher) send(b batch) {
	prev := p.owned[b.owner]
	now := make(map[string]bool, len(b.files))
	for uri, fd := range b.files {
		now[uri] = true
		p.sendFile(fd)
	}
	for uri := range prev {
		if !now[uri] {
			p.sendFile(fileDiagnostics{URI: uri})
		}
	}
	p.owned[b.owner] = now
}

func (p *publisher) sendFile(fd fileDiagnostics) {
	if fd.Diagnostics == nil {
		fd.Diagnostics = []protocol.Diagnostic{} // an empty list, not null, clears the file
	}
	raw, err := json.Marshal(fd.Diagnostics)
	if err != nil {
		return
	}
	h := sha256.Sum256(raw)
	old, known := p.last[fd.URI]
	if known && old == h {
		return
	}
	if !known && len(fd.Diagnostics) == 0 && fd.Version == nil {
		// A closed file the client never heard about: nothing to clear.
		// (An open one gets its empty list, so the editor knows it is
		// clean; nothing is remembered here so that list still goes out
		// when the file is opened.)
		return
	}
	params := protocol.PublishDiagnosticsParams{URI: fd.URI, Diagnostics: fd.Diagnostics}
	if fd.Version != nil {
		v := protocol.UInteger(*fd.Version)
		params.Version = &v
	}
	if err := p.notify("textDocument/publishDiagnostics", params); err != nil {
		return // the connection is gone; nothing to remember
	}
	p.last[fd.URI] = h
}
