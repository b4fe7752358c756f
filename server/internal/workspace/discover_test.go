package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestDiscoveryNeverLooksThroughALinkOut: the files that make a folder a
// workspace and that find its stages are looked up through its Root. A
// link that leaves the workspace counts as the file it names, whatever it
// points at outside (here folders, which a lookup by name followed and
// judged "not a file", so the workspace silently had no identity and no
// stages); reading it then names the link.
func TestDiscoveryNeverLooksThroughALinkOut(t *testing.T) {
	outside := t.TempDir()
	for _, d := range []string{"identity", "contract"} {
		if err := os.Mkdir(filepath.Join(outside, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := wstest.Write(t, `
-- steps/01-a/notes.md --
A stage whose contract is a link out.
-- steps/02-b/notes.md --
And another.
-- nested/inner/pipeline/01-x/CONTEXT.md --
# Stage: 01-x
`)
	link := func(rel, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	link("CLAUDE.md", filepath.Join(outside, "identity"))
	link("steps/01-a/CONTEXT.md", filepath.Join(outside, "contract"))
	link("steps/02-b/CONTEXT.md", filepath.Join(outside, "contract"))
	// A nested folder is a workspace by its own identity file, a link out.
	link("nested/inner/CLAUDE.md", filepath.Join(outside, "identity"))

	if !IsRoot(dir) {
		t.Error("IsRoot: a folder whose CLAUDE.md is a link out is not a workspace")
	}
	ws, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Identity != IdentityFile {
		t.Errorf("Identity = %q, want %s (the link, reported when read)", ws.Identity, IdentityFile)
	}
	var esc *EscapeError
	if _, err := ws.Disk.ReadFile(IdentityFile); !errors.As(err, &esc) || esc.Link == "" {
		t.Errorf("reading the identity: %v, want the link that leaves named", err)
	}
	if ws.StagesDir != "steps" || ws.StagesFrom != StagesFound || len(ws.Stages) != 2 {
		t.Errorf("stages folder %q (%s) with %d stages, want steps/ found with 2", ws.StagesDir, ws.StagesFrom, len(ws.Stages))
	}
	if len(ws.Stages) > 0 {
		if _, err := ws.Disk.ReadFile(ws.Stages[0].Contract); !errors.As(err, &esc) {
			t.Errorf("reading a contract that links out: %v, want the link named", err)
		}
	}

	// With no stages of its own, a folder lists the workspaces below it.
	holder := filepath.Join(dir, "nested")
	if err := os.WriteFile(filepath.Join(holder, IdentityFile), []byte("# Identity\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(holder, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(h.Nested) != 1 || h.Nested[0] != "inner" {
		t.Errorf("Nested = %v, want [inner]", h.Nested)
	}
}
