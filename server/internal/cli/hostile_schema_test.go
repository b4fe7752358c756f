package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/state"
)

// schemaStage is a workspace whose one stage writes JSON and checks it
// against schema.json, which refers to REF.
const schemaStage = `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "tiny"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): input.md

## Process
Write it as JSON.

## Outputs
- out.json -> output/

## Verify
- json-schema schema.json
-- pipeline/01-a/input.md --
The input.
-- pipeline/01-a/schema.json --
{
  "type": "object",
  "properties": {
    "a": {"$ref": "REF"}
  }
}
`

// secretSchema is what the files outside hold: a schema that, were it
// loaded, would fail the output with the secret in the message.
const secretSchema = `{"const": "` + secret + `"}`

// mkfifo makes a named pipe at p, skipping where there are none, and frees
// at the end any reader stuck opening it.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// hostileRefs are the places a workspace's schema may try to load: a file
// of the machine by URL, a file outside by a relative path, a named pipe
// outside and inside the workspace, and a web address. Each returns the
// $ref and what the refusal must say.
func hostileRefs(t *testing.T, out *outside, pipes, web string) map[string]func(dir string) (ref, want string) {
	return map[string]func(string) (string, string){
		"file URL": func(string) (string, string) {
			return "file://" + filepath.ToSlash(out.path("secret.json")), "outside the workspace"
		},
		"relative path out": func(dir string) (string, string) {
			rel, err := filepath.Rel(filepath.Join(dir, "pipeline/01-a"), out.path("secret.json"))
			if err != nil {
				t.Fatal(err)
			}
			return filepath.ToSlash(rel), "outside the workspace"
		},
		"FIFO outside": func(string) (string, string) {
			return "file://" + filepath.ToSlash(filepath.Join(pipes, "pipe.json")) + "#/x", "outside the workspace"
		},
		"FIFO inside": func(dir string) (string, string) {
			mkfifo(t, filepath.Join(dir, "pipeline/01-a/pipe.json"))
			return "pipe.json", "named pipe (FIFO), not a regular file"
		},
		"web address": func(string) (string, string) {
			return web + "/s.json", "from the network"
		},
	}
}

// A workspace's schema refers outside it: icm check reports the $ref with
// the schema's file and line and what to do, icm run is refused with it,
// and nothing outside is opened (the pipe outside would hold the open
// forever), fetched or printed.
func TestSchemaRefsOutsideAreRefusedByCheckAndRun(t *testing.T) {
	out := newOutside(t, map[string]string{"secret.json": secretSchema})
	// The pipe outside is not in the watched folder: reading it to compare
	// would wait for a writer.
	pipes := t.TempDir()
	mkfifo(t, filepath.Join(pipes, "pipe.json"))
	var fetched atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		_, _ = w.Write([]byte(secretSchema))
	}))
	defer web.Close()
	env, _ := modelVars(t, `{"a": "b"}`)
	for name, mk := range hostileRefs(t, out, pipes, web.URL) {
		t.Run(name, func(t *testing.T) {
			dir := newWS(t, schemaStage)
			ref, want := mk(dir)
			p := filepath.Join(dir, "pipeline/01-a/schema.json")
			data, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, []byte(strings.Replace(string(data), "REF", ref, 1)), 0o644))
			var stdout, stderr string
			var err error
			if !within(t, 20*time.Second, "icm check", func() { stdout, stderr, err = runIn(t, dir, env, "check") }) {
				return
			}
			if err == nil || !lineWith(stdout, "pipeline/01-a/CONTEXT.md:", "error", "pipeline/01-a/schema.json line 4", ref, want) {
				t.Errorf("check does not report the $ref (%v):\n%s%s", err, stdout, stderr)
			}
			if !within(t, 20*time.Second, "icm run", func() { stdout, stderr, err = runIn(t, dir, env, "run") }) {
				return
			}
			if err == nil || !strings.Contains(stdout+stderr+err.Error(), want) {
				t.Errorf("run is not refused with the $ref (%v):\n%s%s", err, stdout, stderr)
			}
			noSecretIn(t, dir, stdout, stderr, fmt.Sprint(err))
		})
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("icm fetched a schema from the network %d time(s)", n)
	}
}

// approveStage is schemaStage whose schema refers to defs.json, a schema
// of the workspace that changes after the run.
var approveStage = strings.Replace(schemaStage, `"REF"`, `"defs.json"`, 1) + "-- pipeline/01-a/defs.json --\n{\"type\": \"string\"}\n"

// After a run, the schema file a stage's schema refers to is swapped for
// a named pipe, or for a link to a file outside: icm approve re-runs the
// Verify checks and refuses to read either, at once, saying why.
func TestApproveRefusesASwappedSchemaRef(t *testing.T) {
	out := newOutside(t, map[string]string{"secret.json": secretSchema})
	env, _ := modelVars(t, `{"a": "b"}`)
	for name, tc := range map[string]struct {
		swap func(t *testing.T, p string)
		want string
	}{
		"FIFO":     {func(t *testing.T, p string) { mkfifo(t, p) }, "named pipe (FIFO), not a regular file"},
		"link out": {func(t *testing.T, p string) { must(t, os.Symlink(out.path("secret.json"), p)) }, "outside the workspace"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := newWS(t, approveStage)
			if stdout, stderr, err := runIn(t, dir, env, "run"); err != nil {
				t.Fatalf("run: %v\n%s%s", err, stdout, stderr)
			}
			defs := filepath.Join(dir, "pipeline/01-a/defs.json")
			must(t, os.Remove(defs))
			tc.swap(t, defs)
			var stdout, stderr string
			var err error
			if !within(t, 20*time.Second, "icm approve", func() { stdout, stderr, err = runIn(t, dir, env, "approve", "01-a") }) {
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("approve is not refused with the $ref (%v):\n%s%s", err, stdout, stderr)
			}
			noSecretIn(t, dir, stdout, stderr, fmt.Sprint(err))
			if _, serr := os.Stat(filepath.Join(dir, "pipeline/01-a", state.StateDir, state.ApprovalFile)); serr == nil {
				t.Error("the stage was approved")
			}
		})
	}
}

// A stage test case checks its output against a schema of its own that
// refers to a file outside, or to a named pipe outside: icm test reports
// the case's check as failed with the refusal, and opens neither.
func TestStageTestSchemaRefsOutsideAreRefused(t *testing.T) {
	out := newOutside(t, map[string]string{"secret.json": secretSchema})
	pipes := t.TempDir()
	mkfifo(t, filepath.Join(pipes, "pipe.json"))
	env, _ := modelVars(t, `{"a": "b"}`)
	for name, target := range map[string]string{"file": out.path("secret.json"), "FIFO": filepath.Join(pipes, "pipe.json")} {
		t.Run(name, func(t *testing.T) {
			ws := strings.Replace(schemaStage, `{"$ref": "REF"}`, `{"type": "string"}`, 1) +
				"-- pipeline/01-a/tests/case.md --\n# Case: c\n\n## Inputs\n### input.md\n~~~\nThe input.\n~~~\n\n## Expect\n- json-schema case.schema.json\n" +
				"-- pipeline/01-a/tests/case.schema.json --\n{\"$ref\": \"file://" + filepath.ToSlash(target) + "\"}\n"
			dir := newWS(t, ws)
			var stdout, stderr string
			var err error
			if !within(t, 20*time.Second, "icm test", func() { stdout, stderr, err = runIn(t, dir, env, "test") }) {
				return
			}
			if err == nil || !strings.Contains(stdout, "outside the workspace") {
				t.Errorf("icm test does not refuse the case's $ref (%v):\n%s%s", err, stdout, stderr)
			}
			noSecretIn(t, dir, stdout, stderr)
		})
	}
}
