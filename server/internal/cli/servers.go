package cli

import (
	"github.com/icm-tool/icm/server/internal/toolbox"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// serverNames lists the MCP servers a workspace's stages may name: those
// in config.toml, .vscode/mcp.json and .mcp.json, as runs and the editor see them.
func serverNames(ws *workspace.Workspace) map[string]bool {
	reg, _ := toolbox.Load(ws, toolbox.Self{})
	return toolbox.Names(reg)
}
