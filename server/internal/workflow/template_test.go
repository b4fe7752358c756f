package workflow_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// revising is an ICM-template stage that revises its own previous output,
// reads an optional file that is not there and a glob of references.
const revising = `
-- CLAUDE.md --
# Identity
-- config.toml --
[model]
name = "qwen3.5:9b"
-- stages/01-brief/CONTEXT.md --
# Stage 01: Brief

## Inputs

| Source | File/Location | Section/Scope | Why |
|--------|---------------|---------------|-----|
| This stage | ` + "`output/brief.md`" + ` | Full file (existing draft, if any) | Revise it |
| Reference | ` + "`references/voice.md`" + ` | Full file (if exists) | Voice |
| Reference | ` + "`notes/*.md`" + ` | | Everything noted |

## Process

WRITE the brief.

## Outputs

| Artifact | Location | Format |
|----------|----------|--------|
| Brief | ` + "`output/brief.md`" + ` | Markdown |
-- stages/01-brief/notes/a.md --
NOTE-A
-- stages/01-brief/notes/b.md --
NOTE-B
`

// A run of a stage that reads its own previous output, an optional file
// that is missing and a glob: the first run has no previous version and
// is no error, the second run is given the approved first version, and
// writing the output never makes the stage stale.
func TestRevisingStageRuns(t *testing.T) {
	h := &harness{t: t, dir: wstest.Write(t, revising), srv: ollamatest.New(t, ollamatest.Config{
		Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion"}}},
	})}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	var users []string
	n := 0
	h.srv.On(ollamatest.UserContains("WRITE the brief")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		users = append(users, r.System()+"\n"+r.LastUser())
		n++
		return ollamatest.Text("# Brief\n\nVERSION-" + string(rune('0'+n)))
	})
	h.mustRun(workflow.Options{})
	if st := h.status()["01-brief"]; st != state.Awaiting {
		t.Fatalf("after the first run: %s", st)
	}
	if !strings.Contains(users[0], "NOTE-A") || !strings.Contains(users[0], "NOTE-B") || strings.Contains(users[0], "VERSION-") {
		t.Errorf("first run's context:\n%s", users[0])
	}
	h.approve("01-brief")
	if st := h.status()["01-brief"]; st != state.Approved {
		t.Fatalf("after approving: %s", st)
	}
	h.mustRun(workflow.Options{Stage: "01-brief"})
	if len(users) != 2 || !strings.Contains(users[1], "VERSION-1") {
		t.Fatalf("the second run was not given the previous version:\n%v", users)
	}
	if got := h.read("stages/01-brief/output/brief.md"); !strings.Contains(got, "VERSION-2") {
		t.Errorf("output = %q", got)
	}
	if st := h.status()["01-brief"]; st != state.Awaiting {
		t.Errorf("after the second run: %s, want awaiting-review (not stale)", st)
	}
}

// A stage reading a file of the repository above its workspace
// (/_core/rules.md): the run is given it, writes nothing outside the
// workspace, and the stage goes stale when the shared file changes.
func TestSharedInputRuns(t *testing.T) {
	repo := wstest.Write(t, `
-- .git/HEAD --
ref: refs/heads/main
-- _core/rules.md --
SHARED-RULE-1
-- ws/CLAUDE.md --
# Identity
-- ws/config.toml --
[model]
name = "qwen3.5:9b"
-- ws/stages/01-a/CONTEXT.md --
# Stage 01: A

## Inputs

| Source | File/Location | Why |
|--------|---------------|-----|
| Rules | `+"`/_core/rules.md`"+` | House rules |

## Process

WRITE by the rules.

## Outputs

- a.md -> output/
`)
	h := &harness{t: t, dir: filepath.Join(repo, "ws"), srv: ollamatest.New(t, ollamatest.Config{
		Models: []ollamatest.Model{{Name: model, ContextLength: 32768, Family: "qwen3", Capabilities: []string{"completion"}}},
	})}
	c, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	var system string
	h.srv.On(ollamatest.UserContains("WRITE by the rules")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		system = r.System()
		return ollamatest.Text("# A\n\ndone")
	})
	before := treeOf(t, repo, "ws")
	h.mustRun(workflow.Options{})
	if !strings.Contains(system, "SHARED-RULE-1") {
		t.Errorf("the run was not given the shared file:\n%s", system)
	}
	if after := treeOf(t, repo, "ws"); after != before {
		t.Errorf("the run changed files outside the workspace:\nbefore %s\nafter  %s", before, after)
	}
	h.approve("01-a")
	if st := h.status()["01-a"]; st != state.Approved {
		t.Fatalf("after approving: %s", st)
	}
	if err := os.WriteFile(filepath.Join(repo, "_core", "rules.md"), []byte("SHARED-RULE-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := h.status()["01-a"]; st != state.Stale {
		t.Errorf("after the shared file changed: %s, want stale", st)
	}
}

// treeOf lists every file below root except those under skip, with their
// contents, so two listings differ when anything outside skip changed.
func treeOf(t *testing.T, root, skip string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == skip {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s=%q;", rel, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
