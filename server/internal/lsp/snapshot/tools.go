package snapshot

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
)

// The tool catalog hovers and completion use: each configured server's
// tools, listed through the workspace's session (which starts a server
// once and keeps the listing).

// toolsOf lists a server's tools, waiting within ctx for a server not
// listed yet, and asks for a new snapshot when a listing arrives, so
// tool names are checked too.
func (w *Workspace) toolsOf(ctx context.Context, server string) ([]report.ToolInfo, error) {
	op, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	sess := op.sess
	_, had := sess.Tools().Listing(server)
	infos, err := sess.Tools().List(ctx, server)
	if err != nil {
		if ctx.Err() == nil {
			// Kept for the counts, which name the servers whose
			// definitions they leave out and why.
			w.mu.Lock()
			_, failed := w.unlisted[server]
			w.unlisted[server] = listFailure{err: err, at: time.Now()}
			w.mu.Unlock()
			if !failed {
				w.Touch(false)
			}
		}
		return nil, err
	}
	w.mu.Lock()
	delete(w.unlisted, server)
	w.mu.Unlock()
	if !had {
		w.Touch(false)
	}
	return infos, nil
}

// servers lists the configured tool servers, sorted, with where each one
// is configured.
func (w *Workspace) servers() ([]string, func(string) (string, bool)) {
	op, err := w.Acquire()
	if err != nil {
		return nil, func(string) (string, bool) { return "", false }
	}
	// The locations are the session's registry, in memory: they stay
	// readable after the opening is let go.
	defer op.Release()
	return op.sess.ServerNames(), op.sess.ServerLocation
}
