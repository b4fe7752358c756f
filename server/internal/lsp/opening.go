package lsp

import (
	"sync/atomic"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// opening is one opening of a workspace from disk: the workspace, whose
// Roots hold descriptors (its folder's, its repository's), and the
// session over it. It is closed, session and workspace both, when the
// last of its holders lets go: the wsState while it is the workspace's
// current opening, each analysis made over it, and each request or
// background job between acquiring it and release. So a workspace that
// is reopened (its config or folders changed), closed (its editor folder
// went) or dropped with the server gives its descriptors back as soon as
// nothing reads through it any more, and never while something does. The
// finalizer of an os.Root is not relied on.
type opening struct {
	ws   *workspace.Workspace
	sess *session.Session
	refs atomic.Int64
}

// workspaceClosed answers a request that comes in as its workspace is
// being closed.
func workspaceClosed() *fault.Error {
	return fault.Failed("the workspace was closed (its folder left the editor, or the server is stopping)", "ask again once the workspace is open", nil)
}

// newOpening is held once, by whoever opened it.
func newOpening(ws *workspace.Workspace, sess *session.Session) *opening {
	o := &opening{ws: ws, sess: sess}
	o.refs.Store(1)
	return o
}

// hold adds a holder; release must follow.
func (o *opening) hold() {
	if o != nil {
		o.refs.Add(1)
	}
}

// release lets go of one hold, closing the opening with the last.
func (o *opening) release() {
	if o == nil {
		return
	}
	if o.refs.Add(-1) == 0 {
		o.sess.Close()
		_ = o.ws.Close()
	}
}
