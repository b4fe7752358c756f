package lsp

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/session"
)

// The tool catalog hovers and completion use: each configured server's
// tools, listed through the workspace's session (which starts a server
// once and keeps the listing).

// toolsOf lists a server's tools and re-runs the checks when a listing
// arrives, so tool names are checked too.
func (st *wsState) toolsOf(ctx context.Context, server string) ([]session.ToolInfo, error) {
	op, err := st.acquire()
	if err != nil {
		return nil, err
	}
	defer op.release()
	sess := op.sess
	_, had := sess.Listing(server)
	infos, err := sess.ListTools(ctx, server)
	if err != nil {
		if ctx.Err() == nil {
			// Kept for the counts, which name the servers whose
			// definitions they leave out and why.
			st.mu.Lock()
			_, failed := st.unlisted[server]
			st.unlisted[server] = listFailure{err: err, at: time.Now()}
			st.mu.Unlock()
			if !failed {
				st.touch(false)
			}
		}
		return nil, err
	}
	st.mu.Lock()
	delete(st.unlisted, server)
	st.mu.Unlock()
	if !had {
		st.touch(false)
	}
	return infos, nil
}

// servers lists the configured tool servers, sorted, with where each one
// is configured.
func (st *wsState) servers() ([]string, func(string) (string, bool)) {
	op, err := st.acquire()
	if err != nil {
		return nil, func(string) (string, bool) { return "", false }
	}
	// The locations are the session's registry, in memory: they stay
	// readable after the opening is let go.
	defer op.release()
	return op.sess.ServerNames(), op.sess.ServerLocation
}
