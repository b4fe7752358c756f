package browser

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Summarize returns the summarize tool. fingerprint names the model
// settings, so cached answers of another model are not reused.
func Summarize(pages PageLoader, s Summarizer, cache *Cache, fingerprint string) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("summarize",
		mcp.WithDescription(`Read a whole web page, however long, and return a summary of what it says. Give a question to get an answer focused on it (for example "What are the system requirements?"). Use it after a search, on the result that looks most relevant, to learn what the page actually says; prefer extract when you need specific named values as JSON.`),
		mcp.WithString("url", mcp.Required(), mcp.Description("Full address of the page, starting with http:// or https://.")),
		mcp.WithString("question", mcp.Description("Optional: what you want to know from the page. Leave empty for a general summary.")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		url, bad := urlArg(req)
		if bad != nil {
			return bad, nil
		}
		if s == nil {
			return toolError(url, ErrNoModel), nil
		}
		question := strings.TrimSpace(req.GetString("question", ""))
		p, err := pages.Load(ctx, url)
		if err != nil {
			return toolError(url, err), nil
		}
		key := cacheKey("summarize", fingerprint, p.URL, question)
		var answer string
		if !cache.Get(key, &answer) {
			answer, err = s.Summarize(ctx, p, question)
			if err != nil {
				return toolError(url, err), nil
			}
			_ = cache.Put(key, answer)
		}
		return mcp.NewToolResultText(header(p) + answer), nil
	}
}
