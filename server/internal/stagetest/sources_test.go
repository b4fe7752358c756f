package stagetest

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// fakeTools offers one search tool that returns one URL.
type fakeTools struct{}

func (fakeTools) Tools() []llm.Tool {
	return []llm.Tool{{Name: "web_search", Description: "search", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}
}

func (fakeTools) Call(context.Context, string, map[string]any) (agent.ToolResult, error) {
	return agent.ToolResult{Text: "Found: https://docs.example.org/install", Server: "web", Tool: "search"}, nil
}

func (fakeTools) Close() error { return nil }

// A case's `sources` line checks what the stage's own would: the cited
// URLs must come from this run's tool calls, so an invented one fails.
func TestCaseSourcesCheckTheRunsToolCalls(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# W
-- config.toml --
[model]
name = "alpha"
[mcp.servers.web]
command = "true"
-- pipeline/01-notes/CONTEXT.md --
# Stage: 01-notes

## Inputs
- Layer 4 (working): topic.md

## Tools
web: search

## Process
Search, then write notes with a Sources line.

## Outputs
- notes.md -> output/
-- pipeline/01-notes/topic.md --
# Topic
-- pipeline/01-notes/tests/read.md --
# Case: cites what it read

## Inputs
### topic.md
~~~
Installing the tool.
~~~

## Expect
- sources
`)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "alpha", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(ollamatest.Call("web_search", map[string]any{"q": "install"})))
	cite := "https://docs.example.org/install"
	srv.On(ollamatest.HasToolResult("")).ReplyFunc(func(*ollamatest.Request) ollamatest.Turn {
		return ollamatest.Text("## Install\n\n- Run the installer.\n\nSources: " + cite + "\n")
	})
	client, _ := llm.NewOllama(llm.WithPermit(act.Own("a test's own model server")), llm.WithBaseURL(srv.URL()), llm.WithRetry(0, 1))
	ws, _ := workspace.Open(dir, nil)
	backend := Backend{Client: client, Permit: allowAll, Tools: func(string) workflow.ToolOpener {
		return func(context.Context, workflow.ToolRequest) (workflow.Toolset, error) { return fakeTools{}, nil }
	}}
	run := func() *report.TestResult {
		sel, err := Select(ws, check.Run(ws, check.Options{}), Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return New(ws, backend, Options{}).Run(context.Background(), sel).Results[0]
	}
	if r := run(); r.Status != report.TestPassed {
		t.Fatalf("citing the URL the tool returned: %s %s %s", r.Status, r.FirstFailure, r.Error)
	}
	cite = "https://invented.example.com/page"
	r := run()
	if r.Status != report.TestFailed || !strings.Contains(r.FirstFailure, "invented.example.com") {
		t.Errorf("citing an invented URL: %s %q", r.Status, r.FirstFailure)
	}
}
