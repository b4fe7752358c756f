package snapshot

import (
	"context"
	"errors"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// countTimeout bounds counting a workspace's stages in one analysis.
const countTimeout = time.Second

// listTimeout bounds one background listing of a tool server for the
// counts (starting it, initialize, tools/list).
const listTimeout = 30 * time.Second

// relistAfter is how long a failed listing stands before a count asks
// for the server again.
const relistAfter = 30 * time.Second

// errNotListed is why a count leaves out a server listed for the first
// time: its listing is under way and brings a new analysis.
var errNotListed = errors.New("not listed yet")

// listFailure is a tool server's latest failed listing.
type listFailure struct {
	err error
	at  time.Time
}

// countStages counts every stage's first calls the way the run will send
// them (exact with the model's own files when they are on this machine;
// the tool definitions the catalog has listed), once per analysis, so a
// hover only reads the result.
func (w *Workspace) countStages(ctx context.Context, sess *session.Session, ws *workspace.Workspace, rep *check.Report) map[string]*promptcount.Stage {
	// The server is asked at most once a minute (/api/tags, to match the
	// local files' digest; /tokenize is probed once), through the
	// connection's counting memory; a server that hangs must not hold up
	// the diagnostics, so the whole count is bounded.
	ctx, cancel := context.WithTimeout(ctx, countTimeout)
	defer cancel()
	out := map[string]*promptcount.Stage{}
	for _, stage := range ws.Stages {
		sr := rep.Stage(stage.Name)
		if sr == nil || sr.Contract == nil || sr.Context == nil {
			continue
		}
		n, err := sess.Counts().Stage(ctx, ws, stage, sr.Contract, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy, Order: rep.Order},
			&w.countMemo, w.countTools)
		if err != nil {
			w.set.opts.Log.Info("unable to count the stage", "stage", stage.Name, "err", err)
			continue
		}
		if n != nil {
			out[stage.Name] = n
		}
	}
	return out
}

// countTools is the counts' tool lister: it never waits. A listing the
// session has is used; a server not listed yet (or whose listing failed
// a while ago) is listed in the background, and its arrival brings a new
// analysis; until then the count leaves the server out and says why.
func (w *Workspace) countTools(_ context.Context, server string) ([]report.ToolInfo, error) {
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	infos, ok := o.sess.Tools().Listing(server)
	o.Release()
	if ok {
		return infos, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	f, failed := w.unlisted[server]
	if w.listing[server] || (failed && time.Since(f.at) < relistAfter) {
		if failed {
			return nil, f.err
		}
		return nil, errNotListed
	}
	w.listing[server] = true
	w.set.opts.Go(func() {
		defer func() {
			w.mu.Lock()
			delete(w.listing, server)
			w.mu.Unlock()
		}()
		lctx, cancel := context.WithTimeout(w.ctx, listTimeout)
		defer cancel()
		_, _ = w.toolsOf(lctx, server)
	})
	if failed {
		return nil, f.err
	}
	return nil, errNotListed
}
