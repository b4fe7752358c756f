package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/usersettings"

	"github.com/icm-tool/icm/server/internal/testutil/closedport"
	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// doctorWorkspace names a model, a tool server that starts (the test
// fixture), one whose program is not there, and icm's own search server
// (whose SearXNG is SEARX).
const doctorWorkspace = `
-- CLAUDE.md --
# Planner
-- config.toml --
[model]
name = "qwen3:4b"

[mcp.servers.good]
command = "FIXTURE"

[mcp.servers.broken]
command = "/nowhere/no-such-server"

[mcp.servers.search-server]
command = "icm"
args = ["mcp", "search", "--searxng", "SEARX"]
-- pipeline/01-plan/CONTEXT.md --
# Stage: 01-plan

## Process
Plan the week in a few lines.

## Outputs
- plan.md -> output/
`

// runDoctor runs icm doctor in dir with OLLAMA_HOST at host; icm's own
// servers point at a program that is not there (this test binary must
// never start as one).
func runDoctor(t *testing.T, dir, host string, args ...string) (string, string, int) {
	t.Helper()
	return runDoctorPath(t, dir, host, "", args...)
}

// runDoctorPath is runDoctor with PATH set to path.
func runDoctorPath(t *testing.T, dir, host, path string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"OLLAMA_HOST": host, "PATH": path, usersettings.ConfigDirEnv: os.Getenv(usersettings.ConfigDirEnv)}
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] },
		Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	code := exitCode(env, Run(context.Background(), env, append([]string{"doctor"}, args...)))
	return out.String(), errb.String(), code
}

// doctorDir writes the workspace, trusted for what it names.
func doctorDir(t *testing.T, searx string) string {
	t.Helper()
	dir := untrustedDoctorDir(t, searx)
	trusttest.Grant(t, dir)
	return dir
}

func untrustedDoctorDir(t *testing.T, searx string) string {
	t.Helper()
	src := strings.NewReplacer("FIXTURE", fixtureBin, "SEARX", searx).Replace(doctorWorkspace)
	return wstest.Write(t, src)
}

// Untrusted, the doctor says so, with the command that trusts, and
// starts and asks nothing the workspace names.
func TestDoctorUntrusted(t *testing.T) {
	trusttest.ConfigDir(t)
	searx := fakesearx.New(t, nil)
	out, _, code := runDoctor(t, untrustedDoctorDir(t, searx.URL), closedPort(t))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	wantLines(t, out,
		"✗ trust", "not trusted: it names", "→ run: icm trust",
		"- tool server good", "not started: the workspace is not trusted",
		"- search backend", "not asked: the workspace is not trusted",
	)
	if q := searx.Queries(); len(q) != 0 {
		t.Errorf("the untrusted workspace's SearXNG was asked %v", q)
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	return closedport.URL(t)
}

func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("doctor lacks %q:\n%s", l, out)
		}
	}
}

// The model server down: its line fails and says how to fix it (install
// Ollama when it is not on this machine, start it when it is), what
// depends on it is not asked, and doctor exits 1.
func TestDoctorServerDown(t *testing.T) {
	host := closedPort(t)
	dir := doctorDir(t, closedPort(t))
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "ollama"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed, _, _ := runDoctorPath(t, dir, host, bin)
	wantLines(t, installed, "Ollama is installed here but not running → run: ollama serve")
	out, errOut, code := runDoctor(t, dir, host)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	wantLines(t, out,
		"✗ model server",
		"no model server at "+host,
		"Ollama is not installed on this machine → install: Ollama, from https://ollama.com/download",
		"- model", "the model server did not answer",
		"- context window",
		"✗ search backend", "does not answer → run: docker compose -f docker/compose.yml up -d searxng",
		"next: 01-plan ready to run",
	)
}

// The model missing and a tool server that fails: each line ends with its
// fix (the pull; the entry to correct), the server that works lists its
// tools, the search backend that answers is a tick.
func TestDoctorModelMissingAndABrokenToolServer(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3:1.7b"}}})
	searx := fakesearx.New(t, nil)
	out, errOut, code := runDoctor(t, doctorDir(t, searx.URL), srv.URL())
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	wantLines(t, out,
		"✓ model server", "answers (version ",
		"✗ model", "qwen3:4b is not installed; the nearest installed is qwen3:1.7b → run: icm pull qwen3:4b",
		"✓ tool server good", "starts and lists",
		"✗ tool server broken", "does not start: no such file or directory", "→ set: its entry at config.toml:7",
		"✓ search backend", "SearXNG at "+searx.URL+" answers",
		"✓ contracts", "0 errors, 0 warnings",
	)
	if q := searx.Queries(); len(q) != 1 {
		t.Errorf("SearXNG got %d queries, want one", len(q))
	}
}

// With the model there, its window is measured against the largest stage;
// a window too small says the setting that fixes it. --json carries the
// same lines with their fixes.
func TestDoctorWindowAndJSON(t *testing.T) {
	for _, tc := range []struct {
		window int
		want   string
	}{
		{32768, "✓ context window"},
		{200, "→ set: [model] num_ctx = "},
	} {
		srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3:4b", ContextLength: tc.window}}})
		dir := doctorDir(t, closedPort(t))
		out, _, _ := runDoctor(t, dir, srv.URL())
		wantLines(t, out, "✓ model", "qwen3:4b is installed", tc.want, human.Tokens(tc.window)+"; the largest stage, 01-plan, needs ~")
		raw, _, code := runDoctor(t, dir, srv.URL(), "--json")
		var d struct {
			Lines []struct {
				ID, Status, Text string
				Fix              *struct{ Command, Setting string }
			}
			Failed int
		}
		if err := json.Unmarshal([]byte(raw), &d); err != nil || code != 1 || d.Failed == 0 {
			t.Fatalf("--json: exit %d, %v\n%s", code, err, raw)
		}
		for _, l := range d.Lines {
			if l.Status == "fail" && (l.Fix == nil || l.Fix.Command == "" && l.Fix.Setting == "") {
				t.Errorf("failing line %s has no fix: %+v", l.ID, l)
			}
			if strings.Contains(l.Text, "icm ") || strings.Contains(l.Text, "--") {
				t.Errorf("line %s names a command in its text (the editor shows it): %q", l.ID, l.Text)
			}
		}
	}
}

// TestDoctorNamesTheWorkspaceItRunsIn: run inside the workspace, the
// report's first line names it ("icm doctor: walks"), not ".".
func TestDoctorNamesTheWorkspaceItRunsIn(t *testing.T) {
	dir := doctorDir(t, closedPort(t))
	out, _, _ := runDoctor(t, dir, closedPort(t))
	first, _, _ := strings.Cut(out, "\n")
	if first != "icm doctor: "+filepath.Base(dir) {
		t.Errorf("the first line is %q, want the workspace's name %q", first, filepath.Base(dir))
	}
}
