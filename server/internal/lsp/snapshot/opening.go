package snapshot

import (
	"sync/atomic"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Opening is one opening of a workspace from disk: the workspace, whose
// Roots hold descriptors (its folder's, its repository's), and the
// session over it. It is closed, session and workspace both, when the
// last of its holders lets go: the Workspace while it is the current
// opening, each snapshot made over it, and each request or background
// job between getting it and Release. So a workspace that is reopened
// (its config or folders changed), closed (its editor folder went) or
// dropped with the server gives its descriptors back as soon as nothing
// reads through it any more, and never while something does. The
// finalizer of an os.Root is not relied on.
type Opening struct {
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
func newOpening(ws *workspace.Workspace, sess *session.Session) *Opening {
	o := &Opening{ws: ws, sess: sess}
	o.refs.Store(1)
	return o
}

// Workspace is the workspace as opened (its Files are the disk's).
func (o *Opening) Workspace() *workspace.Workspace { return o.ws }

// Session is the session over the workspace.
func (o *Opening) Session() *session.Session { return o.sess }

// hold adds a holder; Release must follow.
func (o *Opening) hold() {
	if o != nil {
		o.refs.Add(1)
	}
}

// Release lets go of one hold, closing the opening with the last
// (nil-safe, for an opening a caller did not get).
func (o *Opening) Release() {
	if o == nil {
		return
	}
	if o.refs.Add(-1) == 0 {
		o.sess.Close()
		_ = o.ws.Close()
	}
}
