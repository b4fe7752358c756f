package wsmcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// maxFiles bounds the files one call hands in (as the write tool does).
const maxFiles = writeout.MaxFiles

func (s *Server) submitTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(),
		stageArg(true, "The stage, e.g. 01-scope."),
		mcp.WithString("context_id", mcp.Required(), mcp.Description("The context_id of the context you worked from (from probe or the stage's context resource).")),
		mcp.WithArray("files", mcp.Required(), mcp.Description("Every declared output of the stage, one entry each."), mcp.Items(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path":    map[string]any{"type": "string", "description": "The output as the stage declares it, inside output/, e.g. output/objectives.md."},
				"content": map[string]any{"type": "string", "description": "The whole content of the file."},
			},
			"required": []string{"path", "content"},
		})))
	t := tool(toolSubmit, "Hand in the outputs you wrote for a stage from its context. Give every declared output, named as the stage declares it. icm records the run as yours, runs the stage's Verify checks and rubrics, and stops at the review gate; then call request_review. Nothing is saved if a file fits no declared output, a person edited the outputs since the last run, or the stage's context changed since you read it.", opts...)
	return t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		files, err := filesArg(req)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		agent := agentName(ctx)
		return s.call(req, func(_ *served, sess *session.Session) (string, error) {
			run, err := sess.Runs().Submission(session.Submission{Stage: req.GetString("stage", ""), ContextID: req.GetString("context_id", ""), Agent: agent, Files: files}, nil)
			if err != nil {
				return "", err
			}
			sum, err := run.Execute(ctx)
			if sum != nil && len(sum.Ran) > 0 {
				s.changed()
			}
			if err != nil {
				return "", err
			}
			return summaryText(sum, agent), nil
		})
	}
}

// badFiles is a files argument that is not what the tool takes.
func badFiles(msg string) *fault.Error {
	return fault.InvalidRequest(msg, `hand in one {"path", "content"} object per declared output`)
}

// filesArg reads the files argument: each a path and its content.
func filesArg(req mcp.CallToolRequest) ([]writeout.File, error) {
	raw, ok := req.GetArguments()["files"].([]any)
	if !ok {
		return nil, badFiles(`"files" must be a list of {"path": ..., "content": ...}, one per declared output`)
	}
	if len(raw) > maxFiles {
		return nil, badFiles(fmt.Sprintf("%d files were handed in; one run writes at most %d", len(raw), maxFiles))
	}
	out := make([]writeout.File, 0, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, badFiles(fmt.Sprintf("file %d is not an object with path and content", i+1))
		}
		p, okP := m["path"].(string)
		c, okC := m["content"].(string)
		if !okP || !okC {
			return nil, badFiles(fmt.Sprintf("file %d needs \"path\" and \"content\", both strings", i+1))
		}
		out = append(out, writeout.File{Path: p, Content: c})
	}
	return out, nil
}
