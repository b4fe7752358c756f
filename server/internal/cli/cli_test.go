package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	contractsschema "github.com/icm-tool/icm/contracts-schema"
	"github.com/icm-tool/icm/server/internal/schemas"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// runICM runs the command line in dir and returns stdout, stderr and the exit code.
func runICM(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	// The test binary must never be started as icm's own MCP servers
	// (it would run the tests again): those fail to start here.
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Getwd: os.Getwd, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	code := exitCode(env, Run(context.Background(), env, args))
	return out.String(), errb.String(), code
}

func inDir(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
}

func TestCheckShippedWorkspaces(t *testing.T) {
	for _, name := range []string{"course-research", "course-rust"} {
		dir := wstest.Copy(t, name)
		out, errOut, code := runICM(t, "check", "-w", dir)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s%s", name, code, out, errOut)
		}
		if !strings.Contains(out, "0 errors, 0 warnings") {
			t.Errorf("%s: summary missing: %s", name, out)
		}
	}
}

func TestCheckFindsErrorsWithPositions(t *testing.T) {
	// A repository's root: climbing above it is certain to leave.
	dir := wstest.Write(t, `
-- .git/HEAD --
ref: refs/heads/main
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 3 (reference): ../../../etc/passwd

## Process
Go.

## Outputs
- a.md -> output/
`)
	inDir(t, dir)
	out, _, code := runICM(t, "check")
	if code != 1 {
		t.Errorf("exit = %d, want 1", code)
	}
	if !strings.Contains(out, "pipeline/01-a/CONTEXT.md:4:24: error: path ../../../etc/passwd leaves the workspace") {
		t.Errorf("output:\n%s", out)
	}
}

func TestProbeIsDeterministicAndSized(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	a, errOut, code := runICM(t, "probe", "01-scope", "-w", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _, _ := runICM(t, "probe", "01-scope", "-w", dir)
	if a != b {
		t.Error("two probes printed different bytes")
	}
	m := regexp.MustCompile(`(?m)^\s*total\s+(\d+)\s*$`).FindStringSubmatch(a)
	if m == nil {
		t.Fatalf("no total in:\n%s", a)
	}
	total, _ := strconv.Atoi(m[1])
	if total < 300 || total > 3000 {
		t.Errorf("01-scope total = %d tokens; want a few hundred to low thousands", total)
	}
	for _, want := range []string{"=== system", "=== user", "_config/audience.md", "pipeline/01-scope/input.md"} {
		if !strings.Contains(a, want) {
			t.Errorf("probe output lacks %q", want)
		}
	}
	// A later stage shows what is not produced yet.
	c, _, code := runICM(t, "probe", "03-outline", "-w", dir, "--tokens")
	if code != 0 || !regexp.MustCompile(`(?m)^pipeline/02-research/output/notes.md +4  user +0  not produced yet: 02-research$`).MatchString(c) {
		t.Errorf("03-outline probe (exit %d):\n%s", code, c)
	}
}

// contractSchema compiles contracts-schema/contract.schema.json.
func contractSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := schemas.Compile("contract.schema.json", contractsschema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestCheckJSONMatchesSchema(t *testing.T) {
	sch := contractSchema(t)
	dirs := []string{wstest.Copy(t, "course-research")}
	// The template fixtures, read in place; their folder stands for the
	// repository root that holds them.
	repo := wstest.TemplateFixtures(t)
	fixtures, _ := filepath.Glob(filepath.Join(repo, "*"))
	for _, f := range fixtures {
		if st, err := os.Stat(f); err == nil && st.IsDir() && workspace.IsRoot(f) {
			dirs = append(dirs, f)
		}
	}
	for _, dir := range dirs {
		args := []string{"check", "-w", dir, "--json"}
		if strings.HasPrefix(dir, repo) {
			args = append(args, "--repo", repo)
		}
		out, errOut, code := runICM(t, args...)
		if code > 1 {
			t.Fatalf("%s: exit %d: %s", dir, code, errOut)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%s: output is not JSON: %v", dir, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: check --json does not match the schema: %v", filepath.Base(dir), err)
		}
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Stages) == 0 {
			t.Errorf("%s: %d stages, %v", dir, len(rep.Stages), err)
		}
	}
}

// TestStatusAndNextStep: with its model server answering, the shipped
// workspace's next step is its first stage's run, once trusted (it names
// tool servers): before, the next step is to trust it.
func TestStatusAndNextStep(t *testing.T) {
	trusttest.ConfigDir(t)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "qwen3.5:9b", ContextLength: 32768}}})
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	dir := wstest.Copy(t, "course-research")
	out, errOut, code := runAsUser(t, dir, vars, "--trust", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "01-scope     pending") || !strings.Contains(out, "next: 01-scope ready to run") {
		t.Errorf("status:\n%s", out)
	}
	for want, args := range map[string][]string{"run": {"--trust", "status", "--json"}, "trust": {"status", "--json"}} {
		js, _, _ := runAsUser(t, dir, vars, args...)
		var st struct {
			Stages []struct{ Stage, Status string }
			Next   struct{ Stage, Action string }
		}
		if err := json.Unmarshal([]byte(js), &st); err != nil || len(st.Stages) != 4 || st.Next.Action != want {
			t.Errorf("%v = %s (%v), want next action %s", args, js, err, want)
		}
	}
}

func TestNoWorkspaceIsAClearError(t *testing.T) {
	inDir(t, t.TempDir())
	_, errOut, code := runICM(t, "check")
	if code != 1 || !strings.Contains(errOut, "no icm workspace") || !strings.Contains(errOut, "hint:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
