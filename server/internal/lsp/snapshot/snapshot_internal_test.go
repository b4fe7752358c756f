package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// codes lists the codes of a snapshot's findings about file.
func codes(snap *Snapshot, file string) []string {
	var out []string
	for _, f := range snap.report.FindingsFor(file) {
		out = append(out, f.Code)
	}
	return out
}

// TestASnapshotNeverChanges: a change makes a new snapshot, and one
// already handed out stays as it was, buffers, findings and opening
// alike, so a request that holds it answers from one consistent state
// while the next analysis runs.
func TestASnapshotNeverChanges(t *testing.T) {
	trusttest.ConfigDir(t)
	dir := wstest.Copy(t, "course-research")
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := New(ctx, Options{Session: func(ws *workspace.Workspace) *session.Session {
		return session.Open(ws, session.Options{Settings: session.Settings{Host: "127.0.0.1:1"}})
	}})
	defer s.Close()

	scope := filepath.Join(dir, "pipeline", "01-scope", "CONTEXT.md")
	good, err := os.ReadFile(scope)
	if err != nil {
		t.Fatal(err)
	}
	s.Opened(scope, "file://"+scope, 1, good)
	w := s.ForPath(scope)
	if w == nil {
		t.Fatal("no workspace around the contract")
	}
	first, err := w.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if c := codes(first, scope); len(c) != 0 {
		t.Fatalf("the shipped contract has findings: %v", c)
	}

	bad := strings.Replace(string(good), "working): input.md", "working): inputs.md", 1)
	if err := s.Changed(scope, 2, []document.Change{{Text: bad}}); err != nil {
		t.Fatal(err)
	}
	second, err := w.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if second == first {
		t.Fatal("the change did not make a new snapshot")
	}
	if c := codes(second, scope); len(c) != 1 || c[0] != contract.CodeInputMissing {
		t.Errorf("the new snapshot finds %v, want [%s]", c, contract.CodeInputMissing)
	}

	// The first is as it was.
	if c := codes(first, scope); len(c) != 0 {
		t.Errorf("the first snapshot now finds %v", c)
	}
	if d, ok := first.docs.Doc(scope); !ok || d.Version != 1 || string(d.Text) != string(good) {
		t.Errorf("the first snapshot's buffer changed (version %d)", d.Version)
	}
	if src, err := first.view.Files.ReadFile(scope); err != nil || string(src) != string(good) {
		t.Errorf("the first snapshot's view reads the contract as %q, %v", src, err)
	}
	// Its opening is still open: the session answers.
	if first.o.refs.Load() < 1 || first.o.sess.Workspace() == nil {
		t.Error("the first snapshot's opening was closed while held")
	}
}
