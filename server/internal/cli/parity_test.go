package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestTheEditorAndTheCLIFindTheSame: one workspace, saved, trusted, with
// the same settings, checked by `icm check --json` and opened in the
// language server, gives the same findings in both, file by file and
// line by line. Each front end used to build its own check options: the
// editor knew the model's window and the CLI did not, so a workspace far
// over a window config.toml states showed errors in the editor while
// `icm check` said it was fine and `icm status` offered a run.
func TestTheEditorAndTheCLIFindTheSame(t *testing.T) {
	dead := closedport.URL(t)
	cases := map[string]string{}
	for _, name := range []string{"course-research", "course-rust", "tech-article"} {
		cases[name] = wstest.Copy(t, name)
	}
	// A server icm cannot ask for its window, with a small one written in
	// config.toml, and inputs far over it.
	over := wstest.Copy(t, "course-research")
	setModel(t, over, dead)
	big := strings.Repeat("A sentence of reference material that every stage reads in full. ", 2500)
	for _, f := range []string{"_config/audience.md", "_config/voice.md"} {
		appendFile(t, filepath.Join(over, f), "\n"+big)
	}
	cases["over-window"] = over
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) { sameFindings(t, name, cases[name], dead) })
	}
	// Workspaces other people wrote, in a copy of their repository (a
	// .git marks its root, so their shared /_core/ inputs resolve).
	t.Run("icm-template", func(t *testing.T) {
		repo := wstest.CopyDir(t, wstest.TemplateFixtures(t))
		if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"course-deck-production", "research-pipeline-new", "script-to-animation", "workspace-builder"} {
			t.Run(w, func(t *testing.T) { sameFindings(t, w, filepath.Join(repo, w), dead) })
		}
	})
}

// sameFindings checks the workspace at dir, trusted, through icm check
// --json and through the language server (its model server at dead),
// and fails unless both find the same.
func sameFindings(t *testing.T, name, dir, dead string) {
	t.Helper()
	trusttest.Grant(t, dir)
	cli := cliFindings(t, dir)
	if name == "over-window" && !hasCode(cli, "context-over-window") {
		t.Errorf("icm check finds no stage over the 2,048-token window config.toml states:\n%s", strings.Join(cli, "\n"))
	}
	ed := lsptest.Start(t, lsptest.Config{Root: dir, Options: lsp.Options{Log: io.Discard, Self: filepath.Join(t.TempDir(), "icm-not-built")},
		InitOptions: map[string]any{"ollamaHost": dead}})
	if _, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir}); err != nil {
		t.Fatalf("icm.status: %v", err)
	}
	var got []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the editor's findings:\n%s\nicm check's:\n%s", strings.Join(got, "\n"), strings.Join(cli, "\n"))
		}
	})
	ed.Await("the editor's diagnostics to equal icm check's", func() bool {
		got = editorFindings(ed, dir, cli)
		return strings.Join(got, "\n") == strings.Join(cli, "\n")
	})
}

// setModel points the workspace's model at an OpenAI-compatible server
// at url with a 2,048-token window stated in config.toml.
func setModel(t *testing.T, dir, url string) {
	t.Helper()
	p := filepath.Join(dir, "config.toml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "[model]\n", fmt.Sprintf("[model]\nprovider = \"openai\"\nbase_url = %q\ncontext_length = 2048\n", url+"/v1"), 1)
	if s == string(data) {
		t.Fatal("config.toml has no [model] table")
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// cliFindings are `icm check --json`'s findings as "file:line severity
// code: message" lines, sorted.
func cliFindings(t *testing.T, dir string) []string {
	t.Helper()
	rep, _ := runCheckJSON(t, dir)
	var out []string
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%s:%d %s %s: %s", relSlash(dir, f.File), f.Line, f.Severity, f.Code, f.Message))
	}
	sort.Strings(out)
	return out
}

// editorFindings are the diagnostics the editor holds for every file of
// the workspace, in cliFindings' form (files is what the CLI found, so a
// file the editor has no diagnostics for yet is asked for too).
func editorFindings(ed *lsptest.Editor, dir string, cli []string) []string {
	files := map[string]bool{}
	for _, l := range cli {
		files[l[:strings.Index(l, ":")]] = true
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[relSlash(dir, p)] = true
		}
		return nil
	})
	var out []string
	for f := range files {
		ds, _ := ed.Diagnostics(filepath.Join(dir, filepath.FromSlash(f)))
		for _, d := range ds {
			out = append(out, fmt.Sprintf("%s:%d %s %s: %s", f, d.Range.Start.Line+1, severityName(d.Severity), d.Code, d.Message))
		}
	}
	sort.Strings(out)
	return out
}

func severityName(s int) string {
	switch s {
	case 1:
		return "error"
	case 2:
		return "warning"
	}
	return "info"
}

func hasCode(lines []string, code string) bool {
	for _, l := range lines {
		if strings.Contains(l, " "+code+": ") {
			return true
		}
	}
	return false
}
