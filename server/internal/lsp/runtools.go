package lsp

import (
	"context"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// mcpOpener starts a stage's MCP servers through package tools for the
// workflow engine.
func mcpOpener(ws *workspace.Workspace, reg tools.Registry) workflow.ToolOpener {
	return func(ctx context.Context, allow map[string][]string) (workflow.ToolSession, error) {
		sess, err := tools.Open(ctx, reg, allow, tools.DefaultOptions(ws.Root, ws.Config))
		if err != nil {
			return nil, err
		}
		return sessionTools{sess}, nil
	}
}

// sessionTools adapts a tools.Session to the agent loop's interface.
type sessionTools struct{ s *tools.Session }

func (t sessionTools) Tools() []llm.Tool { return t.s.Tools() }

func (t sessionTools) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	r, err := t.s.Call(ctx, name, args)
	return agent.ToolResult{Text: r.Text, IsError: r.IsError, Server: r.Server, Tool: r.Tool, Size: r.Size, Truncated: r.Truncated, Duration: r.Duration}, err
}

func (t sessionTools) Close() error { return t.s.Close() }
