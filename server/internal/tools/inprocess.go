package tools

import (
	"context"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/server"
)

// ListInProcess lists the tools of srv, an MCP server built in this
// process, as s (its name and entry) through the same initialize and
// tools/list a started server answers, so the listing is what a run
// would see; nothing is started and nothing leaves the process. icm's
// own servers are listed this way where no process may be started (an
// untrusted workspace).
func ListInProcess(ctx context.Context, s Server, srv *server.MCPServer, opts Options) ([]report.ToolInfo, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &conn{server: s, opts: opts, cancel: cancel}
	c, err := c.initialize(ctx, life, transport.NewInProcessTransport(srv))
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.close() }()
	return c.listTools(ctx)
}
