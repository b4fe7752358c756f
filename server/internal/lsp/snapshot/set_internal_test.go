package snapshot

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestNoWorkspaceOpensAfterClose: discovery runs in the background and may
// still be walking the editor's folder when the connection ends. A
// workspace it opened after close had an analysis goroutine nothing
// stopped: it outlived Serve and started background work while Serve was
// waiting for its goroutines (a data race on the WaitGroup, seen with
// -race in TestExitCodes and FuzzSession).
func TestNoWorkspaceOpensAfterClose(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := New(ctx, Options{})
	s.Close()
	if w := s.ensure(dir); w != nil {
		w.stop()
		t.Fatal("a workspace was opened, and its analysis started, after the set was closed")
	}
	if n := len(s.All()); n != 0 {
		t.Errorf("%d workspaces known after close, want 0", n)
	}
}
