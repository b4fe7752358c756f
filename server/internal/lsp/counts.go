package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/promptcount"
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
func (st *wsState) countStages(ctx context.Context, sess *session.Session, ws *workspace.Workspace, rep *check.Report) map[string]*promptcount.Stage {
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
		n, err := sess.CountStage(ctx, ws, stage, sr.Contract, assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy},
			&st.countMemo, st.countTools)
		if err != nil {
			st.s.log.Info("unable to count the stage", "stage", stage.Name, "err", err)
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
func (st *wsState) countTools(_ context.Context, server string) ([]session.ToolInfo, error) {
	o, err := st.acquire()
	if err != nil {
		return nil, err
	}
	infos, ok := o.sess.Listing(server)
	o.release()
	if ok {
		return infos, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	f, failed := st.unlisted[server]
	if st.listing[server] || (failed && time.Since(f.at) < relistAfter) {
		if failed {
			return nil, f.err
		}
		return nil, errNotListed
	}
	st.listing[server] = true
	st.s.goBackground(func() {
		defer func() {
			st.mu.Lock()
			delete(st.listing, server)
			st.mu.Unlock()
		}()
		lctx, cancel := context.WithTimeout(st.ctx, listTimeout)
		defer cancel()
		_, _ = st.toolsOf(lctx, server)
	})
	if failed {
		return nil, f.err
	}
	return nil, errNotListed
}

// countLine is the hover's count of a stage's first call and how it was
// made: "1,300 tokens, exact (model tokenizer: BPE qwen2, 151669 tokens)".
func countLine(n *promptcount.Stage) string {
	s := fmt.Sprintf("%d tokens, %s", n.First.Tokens, n.First.Describe())
	if n.ToolDefs > 0 {
		s += fmt.Sprintf(", of which %d tool definitions take %d", n.ToolDefs, n.Tools)
	}
	if len(n.Items) > 1 {
		s += fmt.Sprintf("; the whole stage %d tokens in %d first calls", n.Total.Tokens, len(n.Items))
	}
	if len(n.ToolsLeftOut) > 0 {
		s += "\n\n⚠ Counted without the tool definitions of " + strings.Join(n.ToolsLeftOut, "; ")
	}
	return s
}

// callsText is a For each stage's whole first calls, "4 calls, ~5.2k
// tokens", in the hover and the lens alike.
func callsText(n *promptcount.Stage) string {
	return plural(len(n.Items), "call") + ", " + approxTokens(n.Total.Tokens)
}
