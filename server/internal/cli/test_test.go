package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const testWorkspace = `
-- CLAUDE.md --
# Test workspace
-- config.toml --
[model]
name = "alpha"
[test]
models = ["alpha", "beta"]
-- pipeline/01-idea/CONTEXT.md --
# Stage: 01-idea

## Inputs
- Layer 4 (working): input.md

## Tools
none

## Process
Write learning objectives for the idea.

## Outputs
- objectives.md -> output/

## Verify
- non-empty
-- pipeline/01-idea/input.md --
# Idea
-- pipeline/01-idea/tests/go.md --
# Case: a Go course

## Inputs
### input.md
~~~
Learn Go.
~~~

## Expect
- contains "Go"
-- pipeline/01-idea/tests/python.md --
# Case: a Python course

## Inputs
### input.md
~~~
Learn Python.
~~~

## Expect
- contains "Python"
`

// scriptedCLI starts a scripted server the CLI reaches through
// OLLAMA_HOST: alpha answers well, beta forgets Go.
func scriptedCLI(t *testing.T) *ollamatest.Server {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192}, {Name: "beta", ContextLength: 8192}}})
	srv.On(ollamatest.And(ollamatest.ModelIs("beta"), ollamatest.LastUserContains("Learn Go"))).Reply(ollamatest.Text("1. Write programs."))
	srv.On(ollamatest.LastUserContains("Learn Go")).Reply(ollamatest.Text("1. Write Go programs."))
	srv.On(ollamatest.LastUserContains("Learn Python")).Reply(ollamatest.Text("1. Write Python scripts."))
	t.Setenv("OLLAMA_HOST", srv.URL())
	return srv
}

func TestTestCommandMatrixExitCodeAndFiles(t *testing.T) {
	srv := scriptedCLI(t)
	dir := wstest.Write(t, testWorkspace)
	out, errOut, code := runICM(t, "test", "-w", dir, "--repeat", "2", "--junit", filepath.Join(dir, "junit.xml"))
	if code != 1 {
		t.Fatalf("exit %d with a failing cell\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"case", "alpha", "beta", "01-idea/go", "✓ 2/2", "✗ 0/2", "first failing expectation:",
		`01-idea/go × beta: contains "Go": pipeline/01-idea/output/objectives.md does not contain "Go"`, "6 passed, 2 failed", "saved to"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "2 case(s) × 2 model(s) × 2 repeat(s)") || !strings.Contains(errOut, "✗ [") {
		t.Errorf("progress:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
		t.Error("no JUnit file")
	}
	t.Run("the JUnit file validates", func(t *testing.T) {
		xmllint := need.Program(t, "xmllint")
		schema := filepath.Join("..", "stagetest", "testdata", "junit-10.xsd")
		if msg, err := exec.Command(xmllint, "--noout", "--schema", schema, filepath.Join(dir, "junit.xml")).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %s", msg)
		}
	})
	// One model only: everything passes, exit 0; against the last run, beta's cell is gone.
	out, _, code = runICM(t, "test", "-w", dir, "--models", "alpha", "--baseline", "latest", "--cache", "-q")
	if code != 0 || !strings.Contains(out, "gone 01-idea/go × beta: was 0/2") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// The cache: the same again makes no model call and says so.
	calls := len(srv.ChatRequests())
	out, errOut, code = runICM(t, "test", "-w", dir, "--models", "alpha", "--cache")
	if code != 0 || len(srv.ChatRequests()) != calls || !strings.Contains(out, "(1 cached)") || !strings.Contains(errOut, "cache 1 hit(s), key ") {
		t.Errorf("cached run: exit %d, %d new calls\n%s\n%s", code, len(srv.ChatRequests())-calls, out, errOut)
	}
	// --runs lists the three saved runs, --json gives the report.
	out, _, _ = runICM(t, "test", "-w", dir, "--runs")
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("runs:\n%s", out)
	}
	out, _, code = runICM(t, "test", "-w", dir, "01-idea/python", "--models", "alpha", "--json")
	var rep struct {
		Passed  bool `json:"passed"`
		Results []struct {
			Case, Status string
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.Passed || len(rep.Results) != 1 || rep.Results[0].Case != "01-idea/python" {
		t.Errorf("json: exit %d, %v, %+v\n%s", code, err, rep, out)
	}
}

func TestTestCommandListAndErrors(t *testing.T) {
	dir := wstest.Write(t, testWorkspace)
	out, _, code := runICM(t, "test", "-w", dir, "--list", "-x", "python")
	if code != 0 || !strings.Contains(out, "01-idea/go") || strings.Contains(out, "python") || !strings.Contains(out, "1 case(s)") {
		t.Errorf("list (exit %d):\n%s", code, out)
	}
	_, errOut, code := runICM(t, "test", "-w", dir, "01-idea/rust")
	if code != 1 || !strings.Contains(errOut, `stage 01-idea has no case "rust"; its cases: 01-idea/go, 01-idea/python`) {
		t.Errorf("unknown case (exit %d): %s", code, errOut)
	}
	_, errOut, code = runICM(t, "test", "-w", dir, "-i", "nothing")
	if code != 1 || !strings.Contains(errOut, "no test cases to run") || !strings.Contains(errOut, "hint: add a case") {
		t.Errorf("nothing selected (exit %d): %s", code, errOut)
	}
	_, errOut, code = runICM(t, "test", "-w", dir, "--baseline", "nope")
	if code != 1 || !strings.Contains(errOut, `no saved test run "nope"`) {
		t.Errorf("unknown baseline (exit %d): %s", code, errOut)
	}
	out, _, _ = runICM(t, "help", "test")
	for _, want := range []string{"ICM TEST", "THE CASE GRAMMAR", "CRITERION", "not-contains", "--baseline", "--junit"} {
		if !strings.Contains(out, want) {
			t.Errorf("icm help test lacks %q", want)
		}
	}
}

// icm check reports a case's problems as it does a contract's: file, line
// and column, and exit status 1 for an error.
func TestCheckReportsCaseFindings(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	p := filepath.Join(dir, "pipeline", "03-outline", "tests", "bad.md")
	if err := os.WriteFile(p, []byte("# Case: bad\n\n## Inputs\n- notes.md <- nowhere.md\n\n## Expect\n- contain \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runICM(t, "check", "-w", dir)
	if code != 1 {
		t.Errorf("exit %d with an error in a case", code)
	}
	for _, want := range []string{
		"pipeline/03-outline/tests/bad.md:7:3: error: unknown expectation \"contain\"",
		"pipeline/03-outline/tests/bad.md:4:3: warning: 03-outline does not read notes.md",
		"pipeline/03-outline/tests/bad.md:4:15: error: the stand-in nowhere.md does not exist",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("icm check lacks %q:\n%s", want, out)
		}
	}
}
