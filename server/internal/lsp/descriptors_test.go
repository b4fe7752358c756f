package lsp_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// workspaceDescriptors counts this process's open descriptors on dir:
// the folder itself, anything inside it, and the folders above it (a
// repository's Root). Descriptors of anything else (sockets, pipes, the
// runtime's own, other tests' leftovers closing meanwhile) come and go
// with the machine's timing and say nothing about the workspace.
func workspaceDescriptors(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to count descriptors in")
	}
	n := 0
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || !filepath.IsAbs(target) {
			continue // closed meanwhile, or a socket, pipe or anonymous inode
		}
		if within(target, dir) || (within(dir, target) && isDir(target)) {
			n++
		}
	}
	return n
}

// settledDescriptors waits up to limit for the count on dir to fall to
// want and returns the last count.
func settledDescriptors(t *testing.T, dir string, want int, limit time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		n := workspaceDescriptors(t, dir)
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// within says whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestWorkspaceDescriptorsDoNotGrow: every opening of a workspace holds
// descriptors (its folder's Root, its repository's). Reopening it (a
// settings change), a status (a session of its own), and closing the
// editor folder and opening it again, over and over, must leave the count
// where it was, and the server's exit must close them all. The garbage
// collector is off for the test: a Root closed only when collected would
// otherwise hide the leak now and then.
func TestWorkspaceDescriptorsDoNotGrow(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // /proc names a descriptor by its real path
	}
	idle := workspaceDescriptors(t, dir)
	ed := lsptest.Start(t, lsptest.Config{Root: dir, Options: lsp.Options{Log: io.Discard}, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
	folder := []map[string]any{{"uri": lsptest.URI(dir), "name": "w"}}
	round := func() {
		// A settings change reopens every workspace.
		ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"icm": map[string]any{"ollamaHost": "127.0.0.1:1"}}})
		if _, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir}); err != nil {
			t.Fatalf("icm.status: %v", err)
		}
		ed.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"removed": folder, "added": []any{}}})
		ed.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"removed": []any{}, "added": folder}})
		if _, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir}); err != nil {
			t.Fatalf("icm.status: %v", err)
		}
	}
	// The first rounds open what stays open for the connection (a
	// resolver's cache, a pooled connection).
	for range 3 {
		round()
	}
	before := workspaceDescriptors(t, dir)
	const rounds = 20
	for range rounds {
		round()
	}
	// Discovery of the re-added folder runs in the background: let the
	// last one finish before counting.
	ed.Await("the workspace found again", func() bool {
		_, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir})
		return err == nil
	})
	// Analyses of the last reopenings may still be walking the folders;
	// they end on their own, a leak never does. Give them a bounded time.
	after := settledDescriptors(t, dir, before+2, 10*time.Second)
	if after > before+2 {
		t.Errorf("%d descriptors open after %d rounds of reopening the workspace, %d before: %d left open per round",
			after, rounds, before, (after-before)/rounds)
	}
	// Once the server has exited, nothing of the workspace is open.
	ed.Shutdown()
	if left := workspaceDescriptors(t, dir); left > idle {
		t.Errorf("%d descriptors open after the server exited, %d before it started", left, idle)
	}
}

// TestConfigHoverLetsGoOfTheWorkspace: a hover in config.toml holds the
// workspace's opening while it reads the key's docs. It must let go, or
// the opening a reopen replaces is never closed and its descriptors stay
// open, one set per hover (a hover on any key but model.name held it for
// good).
func TestConfigHoverLetsGoOfTheWorkspace(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ed := lsptest.Start(t, lsptest.Config{Root: dir, Options: lsp.Options{Log: io.Discard}, InitOptions: map[string]any{"ollamaHost": "127.0.0.1:1"}})
	ed.Open("config.toml")
	temperature := ed.Pos("config.toml", "temperature", 0)
	round := func() {
		if h, err := ed.Hover("config.toml", temperature); err != nil || !strings.Contains(h, "model.temperature") {
			t.Fatalf("hover on temperature = %q, %v", h, err)
		}
		// A settings change reopens the workspace: the opening the hover
		// held is replaced, and closed once nothing holds it.
		ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"icm": map[string]any{"ollamaHost": "127.0.0.1:1"}}})
		if _, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir}); err != nil {
			t.Fatalf("icm.status: %v", err)
		}
	}
	for range 3 {
		round()
	}
	before := workspaceDescriptors(t, dir)
	const rounds = 20
	for range rounds {
		round()
	}
	after := settledDescriptors(t, dir, before+2, 10*time.Second)
	if after > before+2 {
		t.Errorf("%d descriptors open after %d hovers in config.toml, each followed by a reopening, %d before: %d left open per hover",
			after, rounds, before, (after-before)/rounds)
	}
}
