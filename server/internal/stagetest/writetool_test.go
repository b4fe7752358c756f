package stagetest

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// named is a workspace whose one stage names its output with a
// placeholder, so the model writes it through the write tool.
const named = `
-- CLAUDE.md --
# Test workspace

You plan walks.
-- config.toml --
[model]
name = "alpha"
-- stages/01-walk/CONTEXT.md --
# Stage: 01-walk

## Inputs
- Layer 4 (working): brief.md

## Process
Plan the walk the brief describes.

## Outputs
- [walk-slug]-plan.md -> output/

## Verify
- non-empty
-- stages/01-walk/brief.md --
A walk by the river.
-- stages/01-walk/tests/hills.md --
# Case: a walk in the hills

## Inputs
### brief.md
~~~markdown
A walk over the hills.
~~~

## Expect
- contains "ridge"
`

// A case of a stage that writes through the write tool reads the file the
// model named in the test copy: the expectation passes on what was
// written, and the workspace's own output folder stays empty.
func TestCaseReadsTheFileTheModelNamed(t *testing.T) {
	caps := []string{"completion", "tools"}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192, Family: "qwen3", Capabilities: caps}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "output/hills-plan.md", "content": "# Hills\n\nUp the ridge and down the valley.\n"}),
	))
	srv.Default(ollamatest.Text("Wrote the plan."))
	client, err := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	dir := wstest.Write(t, named)
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := runCases(t, ws, client, Options{})
	res := result(t, rep, "01-walk/hills", "alpha", 1)
	if res.Status != report.TestPassed {
		t.Fatalf("status %s (%s), checks %+v", res.Status, res.Error, res.Checks)
	}
	if res.Output != "stages/01-walk/output/hills-plan.md" || !strings.Contains(res.Outputs[res.Output], "ridge") {
		t.Errorf("output %q, outputs %v", res.Output, res.Outputs)
	}
	before := hashTree(t, dir, func(rel string) bool { return strings.HasPrefix(rel, "history") })
	for rel := range before {
		if strings.Contains(rel, "output/") {
			t.Errorf("the workspace gained %s", rel)
		}
	}
}
