package cli

import "github.com/icm-tool/icm/server/internal/workspace"

// serverNames lists the MCP servers a workspace's stages may name.
func serverNames(ws *workspace.Workspace) map[string]bool {
	out := map[string]bool{}
	for name := range ws.Config.MCP.Servers {
		out[name] = true
	}
	return out
}
