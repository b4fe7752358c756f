package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// An editor folder that is the root of a repository holding several
// workspaces (the ICM template's layout): the status lists every one of
// them, as the diagnostics already cover them, so the Pipeline view shows
// them instead of "no ICM workspace found".
func TestStatusListsTheWorkspacesOfARepositoryRoot(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 8192}}, AllowUnscripted: true})
	root := wstest.CopyDir(t, filepath.Join(wstest.RepoRoot(t), "server", "testdata", "icm-template"))
	cfg := lsptest.Config{Root: root, InitOptions: map[string]any{"ollamaHost": srv.URL()}}
	cfg.Options.Self = icmBin
	ed := lsptest.Start(t, cfg)
	want := []string{"course-deck-production", "research-pipeline-new", "script-to-animation", "workspace-builder"}
	// The editor asks for the status once it starts, maybe before the
	// workspaces below its folder are found: each must then be pushed.
	names := func() []string {
		seen := map[string]bool{}
		for _, raw := range ed.Notifications("icm/statusChanged") {
			var ws struct{ Name string }
			if err := json.Unmarshal(raw, &ws); err != nil {
				t.Fatal(err)
			}
			seen[ws.Name] = true
		}
		var out []string
		for n := range seen {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	ed.Await("a status notification for each of the template's workspaces", func() bool { return len(names()) >= len(want) })
	if got := names(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("workspaces = %v, want %v", got, want)
	}
}
