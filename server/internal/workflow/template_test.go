package workflow_test

import (
	"strings"
	"testing"

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
	c, err := llm.NewOllama(llm.WithBaseURL(h.srv.URL()), llm.WithRetry(0, 1))
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
