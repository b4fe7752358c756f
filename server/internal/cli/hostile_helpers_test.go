package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// secret is what files outside the workspace hold: it must never show up
// in anything icm prints or writes.
const secret = "OUTSIDE-SECRET-7f3a9c"

// oneStage is a workspace with one model stage reading input.md.
const oneStage = `
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
Write it.

## Outputs
- out.md -> output/
-- pipeline/01-a/input.md --
The input.
`

// outside is a folder beyond the workspace that a test watches: when the
// test ends it must hold exactly what it held at the start, byte for byte,
// and nothing more. That is the proof nothing was written there.
type outside struct {
	dir  string
	want map[string][]byte
}

// newOutside makes the folder with files (name -> content) and registers
// the check.
func newOutside(t *testing.T, files map[string]string) *outside {
	t.Helper()
	o := &outside{dir: t.TempDir()}
	for name, data := range files {
		p := filepath.Join(o.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.want = snapshotTree(t, o.dir)
	t.Cleanup(func() {
		got := snapshotTree(t, o.dir)
		for name, data := range got {
			if want, ok := o.want[name]; !ok {
				t.Errorf("icm wrote %s outside the workspace (%d bytes)", name, len(data))
			} else if !bytes.Equal(want, data) {
				t.Errorf("icm changed %s outside the workspace", name)
			}
		}
		for name := range o.want {
			if _, ok := got[name]; !ok {
				t.Errorf("icm removed %s outside the workspace", name)
			}
		}
	})
	return o
}

// path returns a file of the folder.
func (o *outside) path(name string) string { return filepath.Join(o.dir, filepath.FromSlash(name)) }

// snapshotTree reads every file and folder under dir (folders as nil).
func snapshotTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// noSecretIn fails when the secret appears in any of texts or in any file
// under the workspace dir (the run records, traces and outputs included).
func noSecretIn(t *testing.T, dir string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("icm printed the content of a file outside the workspace:\n%s", s)
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(secret)) {
			t.Errorf("icm copied the content of a file outside the workspace into %s", p)
		}
		return nil
	})
}

// linkOut replaces the workspace path rel by a symlink to target.
func linkOut(t *testing.T, dir, rel, target string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// modelVars starts a scripted model server answering every call with
// answer and returns the environment that points icm at it.
func modelVars(t *testing.T, answer string) (map[string]string, *ollamatest.Server) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 32768}}, AllowUnscripted: true})
	srv.Default(ollamatest.Text(answer))
	return map[string]string{"OLLAMA_HOST": srv.URL()}, srv
}

// within runs f, failing the test when it has not returned by d. It is a
// hang detector, not a speed goal: every f it guards finishes in
// milliseconds once fixed, and d is a thousand times that.
func within(t *testing.T, d time.Duration, what string, f func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		t.Errorf("%s did not finish within %s", what, d)
		return false
	}
}

// files lists a folder's entries, sorted, for messages.
func files(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// newWS writes a workspace from a txtar archive.
func newWS(t *testing.T, archive string) string { return wstest.Write(t, archive) }
