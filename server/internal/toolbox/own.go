package toolbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/icm-tool/icm/server/internal/mcpserver/browser"
	"github.com/icm-tool/icm/server/internal/mcpserver/ingest"
	"github.com/icm-tool/icm/server/internal/mcpserver/search"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/tools"
)

// ownServer builds the MCP server that `icm ARGS` would serve (icm mcp
// search, browser or ingest) with its tool definitions and nothing
// behind them: no searcher, no page loader, no model, so no handler can
// reach anything. false when args name none of icm's servers.
func ownServer(args []string) (*server.MCPServer, bool) {
	if len(args) < 2 || args[0] != "mcp" {
		return nil, false
	}
	switch args[1] {
	case "search":
		return search.NewServer(search.Deps{}), true
	case "browser":
		// The one flag that changes what a tool says of itself.
		return browser.NewServer(browser.Deps{SnippetChars: intFlag(args[2:], "--snippet-chars")}), true
	case "ingest":
		return ingest.NewServer(ingest.Deps{}), true
	}
	return nil, false
}

// intFlag reads "--name N" or "--name=N" from args (0 when absent or not a number).
func intFlag(args []string, name string) int {
	for i, a := range args {
		v, ok := strings.CutPrefix(a, name+"=")
		if !ok && a == name && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// IsOwn reports whether the server of that name is one of icm's own
// (`command = "icm"`).
func (b *Box) IsOwn(name string) bool { return b.self[name] }

// OwnTools lists the tools of one of icm's own servers from the server
// package's own definitions, in this process: the listing a started
// server would give, with no process started and nothing contacted.
// false when the server is not one of icm's own, or its arguments name
// no server icm has.
func (b *Box) OwnTools(ctx context.Context, name string, opts tools.Options) ([]report.ToolInfo, bool, error) {
	s, ok := b.Registry[name]
	if !ok || !b.self[name] {
		return nil, false, nil
	}
	srv, ok := ownServer(s.Args)
	if !ok {
		return nil, false, nil
	}
	infos, err := tools.ListInProcess(ctx, s, srv, opts)
	if err != nil {
		return nil, true, fmt.Errorf("unable to list icm's own server %q: %w", name, err)
	}
	return infos, true, nil
}
