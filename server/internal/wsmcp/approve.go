package wsmcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/state"
)

// approveTool exists only where the person's own settings let agents
// approve; its approvals are recorded as the agent's.
func (s *Server) approveTool() (mcp.Tool, server.ToolHandlerFunc) {
	opts := append(s.workspaceArg(), stageArg(true, "The stage awaiting review, e.g. 01-scope."))
	t := tool(toolApprove, "Approve a stage's outputs as they are. The person allowed agents to approve in their own icm settings; the approval is recorded as yours, apart from a person's. Refused while Verify or rubric checks fail, the stage is stale, or its last run failed.", opts...)
	return t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		by := state.AgentPrefix + agentName(ctx)
		return s.call(req, func(_ *served, sess *session.Session) (string, error) {
			a, err := sess.Reviews().ApproveAs(ctx, req.GetString("stage", ""), by)
			if err != nil {
				return "", err
			}
			s.changed()
			if a.By != by {
				return fmt.Sprintf("Stage %s was approved already (by %s); nothing changed.\n", a.Stage, a.By), nil
			}
			return fmt.Sprintf("Approved %s as %s (allowed by %s). It shows as an agent's approval, apart from a person's.\n", a.Stage, by, s.d.SettingsPath), nil
		})
	}
}
