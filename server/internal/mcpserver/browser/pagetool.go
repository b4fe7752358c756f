package browser

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// pageTool builds a read-only tool that takes one url, loads the page and
// answers with render's view of it under the page's header. The three
// fetch_* tools differ only in their words and their view.
func pageTool(pages PageLoader, name, description, urlDescription string, render func(*Page) string) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool(name,
		mcp.WithDescription(description),
		mcp.WithString("url", mcp.Required(), mcp.Description(urlDescription)),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		url, bad := urlArg(req)
		if bad != nil {
			return bad, nil
		}
		p, err := pages.Load(ctx, url)
		if err != nil {
			return toolError(url, err), nil
		}
		return mcp.NewToolResultText(header(p) + render(p)), nil
	}
}
