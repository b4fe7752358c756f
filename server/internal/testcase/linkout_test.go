package testcase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// TestCasesAreNeverFoundThroughALinkOut: a stage's tests/ links to a
// folder outside the workspace holding a case file, a case folder and a
// file a case could name. None of it is listed as the stage's cases, and
// a case file reached through the link (an editor may open it by that
// path) is offered none of the files beside it.
func TestCasesAreNeverFoundThroughALinkOut(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Identity
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): idea.md

## Process
Do it.

## Outputs
- a.md -> output/
-- pipeline/01-a/idea.md --
An idea.
`)
	outside := t.TempDir()
	for name, text := range map[string]string{
		"leak.md":           "# Case: from outside\n\n## Expect\n- non-empty\n",
		"folder/CASE.md":    "# Case: a folder outside\n\n## Inputs\n- idea.md <- \n",
		"folder/secret.txt": "outside\n",
	} {
		p := filepath.Join(outside, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "pipeline/01-a", Dir)); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st, err := ws.Stage("01-a")
	if err != nil {
		t.Fatal(err)
	}
	if refs := Refs(ws, st); len(refs) != 0 {
		t.Errorf("Refs listed %d cases through tests/, a link out: %+v", len(refs), refs)
	}
	if cases := Load(ws, st); len(cases) != 0 {
		t.Errorf("Load found %d cases through tests/, a link out", len(cases))
	}
	file := filepath.Join(st.Dir, Dir, "folder", FolderFile)
	src := []byte("# Case: a folder outside\n\n## Inputs\n- idea.md <- ")
	c := Parse(RefOf(st, file), src)
	for _, sg := range Complete(ws, st, nil, c, src, len(src)) {
		if strings.Contains(sg.Label, "secret") {
			t.Errorf("offered %q (%s), a file outside the workspace", sg.Label, sg.Detail)
		}
	}
}
