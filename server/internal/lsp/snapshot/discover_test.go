package snapshot_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// discoverRoots runs the set's discovery on folder and returns the roots
// it opened, relative to base.
func discoverRoots(t *testing.T, base, folder string) []string {
	t.Helper()
	trusttest.ConfigDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := snapshot.New(ctx, snapshot.Options{
		Session: func(ws *workspace.Workspace) *session.Session {
			return session.Open(ws, session.Options{Settings: session.Settings{Host: "127.0.0.1:1"}})
		},
	})
	t.Cleanup(func() { s.Close(); cancel() })
	s.Discover(folder)
	var got []string
	for _, w := range s.All() {
		rel, err := filepath.Rel(base, w.Root())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	return got
}

// TestDiscoveryBelowAFolderTakesOnlyWorkspacesWithARootFile: a folder
// whose stages/ holds stage contracts but which has no CLAUDE.md, AGENTS.md
// or CONTEXT.md is a workspace when the editor opens it (or a folder in
// it), found upwards as -w finds it. Walking down a parent folder, the
// language server still opens only folders with a root file: a copy of
// such a layout among a project's folders (examples, a package in
// node_modules, a stages/ of notes with no contract) is no workspace.
func TestDiscoveryBelowAFolderTakesOnlyWorkspacesWithARootFile(t *testing.T) {
	dir := wstest.Write(t, `
-- real/CLAUDE.md --
# Identity
-- real/stages/01-a/CONTEXT.md --
# Stage 01: A
-- rootless/_config/voice.md --
# Voice
-- rootless/stages/01-draft/CONTEXT.md --
# Stage 01: Draft
-- docs/examples/stages/01-x/CONTEXT.md --
# Stage 01: X
-- notes/stages/01-ideas/ideas.md --
not a contract
-- node_modules/pkg/stages/01-y/CONTEXT.md --
# Stage 01: Y
`)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	// Before: real only. After: the same, the rootless layout being found
	// only from inside it.
	if got := discoverRoots(t, dir, dir); !slices.Equal(got, []string{"real"}) {
		t.Errorf("discovery below the parent folder opened %v, want [real]", got)
	}
	if got := discoverRoots(t, dir, filepath.Join(dir, "rootless", "stages", "01-draft")); !slices.Equal(got, []string{"rootless"}) {
		t.Errorf("discovery from inside the rootless layout opened %v, want [rootless]", got)
	}
}
