package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// personsOllama is the person's own model server (OLLAMA_HOST), which
// answers every stage with one line.
func personsOllama(t *testing.T) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	srv.Default(ollamatest.Text("one line"))
	t.Setenv("OLLAMA_HOST", srv.URL())
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestATestCaseRunNeedsTrust: a workspace whose contracts name nothing
// that acts, and whose stage test case runs a command (issue 30, item 1:
// icm test ran it, and icm trust --show never listed it). icm test is
// refused until the person trusts the list, which names the case's
// command; after the grant it runs; a change to the command untrusts it.
func TestATestCaseRunNeedsTrust(t *testing.T) {
	trusttest.ConfigDir(t)
	personsOllama(t)
	marker := filepath.Join(t.TempDir(), "case-ran")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "m"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write one line.

## Outputs
- a.md -> output/
-- pipeline/01-a/tests/short.md --
# Case: short

## Expect
- contains "line"
- run: touch `+marker+`
`)
	_, errOut, err := inWorkspace(t, dir, "test")
	if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(errOut, "icm trust") {
		t.Errorf("icm test of an untrusted case: %v (kind %s)\n%s", err, fault.KindOf(err), errOut)
	}
	if exists(marker) {
		t.Fatal("the case's run: command ran without trust")
	}
	out, _, _ := inWorkspace(t, dir, "trust", "--show")
	if !strings.Contains(out, "touch "+marker) || !strings.Contains(out, "from pipeline/01-a/tests/short.md ## Expect") {
		t.Errorf("icm trust --show does not list the case's command:\n%s", out)
	}
	if _, errOut, err := inWorkspace(t, dir, "trust", "--yes"); err != nil {
		t.Fatalf("icm trust --yes: %v\n%s", err, errOut)
	}
	if out, errOut, err := inWorkspace(t, dir, "test"); err != nil || !exists(marker) {
		t.Fatalf("icm test after the grant: %v, marker %v\n%s%s", err, exists(marker), out, errOut)
	}
	file := filepath.Join(dir, "pipeline", "01-a", "tests", "short.md")
	src, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "touch ", "touch /dev/null; touch ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := inWorkspace(t, dir, "test"); fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(errOut, "pipeline/01-a/tests/short.md ## Expect changed") {
		t.Errorf("icm test after the case changed: %v\n%s", err, errOut)
	}
}

// TestARewrittenScriptUntrusts: a trusted Script stage runs `sh
// ./build.sh`; a pull rewrites build.sh (issue 30, item 5: it ran under
// the old grant). The run is refused and icm trust --show names the file.
func TestARewrittenScriptUntrusts(t *testing.T) {
	trusttest.ConfigDir(t)
	marker := filepath.Join(t.TempDir(), "rewritten-ran")
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- pipeline/01-b/CONTEXT.md --
# Stage: 01-b

## Script
sh ./build.sh

## Outputs
- b.md -> output/
-- pipeline/01-b/build.sh --
printf 'b\n' > "$ICM_OUTPUT/b.md"
`)
	if _, errOut, err := inWorkspace(t, dir, "trust", "--yes"); err != nil {
		t.Fatalf("icm trust --yes: %v\n%s", err, errOut)
	}
	if out, errOut, err := inWorkspace(t, dir, "run", "--stage", "01-b"); err != nil {
		t.Fatalf("the trusted script: %v\n%s%s", err, out, errOut)
	}
	script := filepath.Join(dir, "pipeline", "01-b", "build.sh")
	if err := os.WriteFile(script, []byte("touch '"+marker+"'\nprintf 'b\\n' > \"$ICM_OUTPUT/b.md\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := inWorkspace(t, dir, "run", "--stage", "01-b")
	if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(errOut, "pipeline/01-b/build.sh changed since you trusted it") {
		t.Errorf("the run after build.sh changed: %v\n%s", err, errOut)
	}
	if exists(marker) {
		t.Error("the rewritten script ran under the old grant")
	}
	if out, _, _ := inWorkspace(t, dir, "trust", "--show"); !strings.Contains(out, "pipeline/01-b/build.sh changed since you trusted it") {
		t.Errorf("icm trust --show does not name the changed file:\n%s", out)
	}
}

// TestPullRefusesARegistryTheWorkspaceNames: config.toml names a model
// on a registry host of its own (issue 30, item 8: icm pull asked the
// person's Ollama to pull from it). Untrusted, icm pull refuses and the
// person's server is not asked; icm trust --show lists the host.
func TestPullRefusesARegistryTheWorkspaceNames(t *testing.T) {
	trusttest.ConfigDir(t)
	person := trusttest.NewRecorder(t, "")
	registry := trusttest.NewRecorder(t, "")
	host := strings.TrimPrefix(registry.URL, "http://")
	t.Setenv("OLLAMA_HOST", person.URL)
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "`+host+`/ns/model:latest"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.

## Outputs
- a.md -> output/
`)
	_, errOut, err := inWorkspace(t, dir, "pull")
	if fault.KindOf(err) != fault.KindUntrusted || !strings.Contains(errOut, "icm trust") {
		t.Errorf("icm pull: %v (kind %s)\n%s", err, fault.KindOf(err), errOut)
	}
	for _, r := range person.Requests() {
		if strings.Contains(r, "/api/pull") {
			t.Errorf("the person's Ollama was asked to pull from %s: %v", host, person.Requests())
		}
	}
	if out, _, _ := inWorkspace(t, dir, "trust", "--show"); !strings.Contains(out, "pulls from "+host) {
		t.Errorf("icm trust --show does not list the registry:\n%s", out)
	}
}
