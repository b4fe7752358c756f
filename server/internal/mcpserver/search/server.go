package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Searcher runs a web search (a *Client).
type Searcher interface {
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// Deps are what the search server needs.
type Deps struct {
	Searcher Searcher
	// Version is reported to clients.
	Version string
}

// Name is the server's MCP name.
const Name = "icm-search"

// Result-count bounds of the tool.
const (
	DefaultResults = 5
	MaxResults     = 20
)

// NewServer builds the search MCP server.
func NewServer(d Deps) *server.MCPServer {
	v := d.Version
	if v == "" {
		v = "dev"
	}
	s := server.NewMCPServer(Name, v,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions("Web search. Results are titles and short snippets only: read the most relevant result pages before answering."),
	)
	tool, handler := SearchTool(d.Searcher)
	s.AddTool(tool, handler)
	return s
}

// SearchTool returns the search tool.
func SearchTool(s Searcher) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("search",
		mcp.WithDescription(`Search the web and get a numbered list of results: title, URL and a short snippet each. Use it for current or real-world facts you do not know (recent events, prices, versions, people, places); do not use it for arithmetic, definitions you already know, or code syntax. Snippets are often incomplete or out of date: after searching, always read the most relevant result page (for example with summarize or fetch_snippet) before you answer.`),
		mcp.WithString("query", mcp.Required(), mcp.Description("What to search for: a few specific keywords, as you would type into a search engine.")),
		mcp.WithNumber("max_results", mcp.Description(fmt.Sprintf("How many results to return (1 to %d, default %d).", MaxResults, DefaultResults)), mcp.Min(1), mcp.Max(MaxResults)),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q, err := req.RequireString("query")
		q = strings.TrimSpace(q)
		if err != nil || q == "" {
			return mcp.NewToolResultError(`the "query" argument is required: a few keywords to search for`), nil
		}
		n := req.GetInt("max_results", DefaultResults)
		n = min(max(n, 1), MaxResults)
		results, err := s.Search(ctx, q, n)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(Format(q, results)), nil
	}
}

// Format writes results as the numbered list the tool returns.
func Format(query string, results []Result) string {
	if len(results) == 0 {
		return fmt.Sprintf("No results for %q. Try other or fewer keywords.", query)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Results for %q:\n\n", query)
	for i, r := range results {
		title := oneLine(r.Title)
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&sb, "[%d] %s\n    %s\n", i+1, title, strings.TrimSpace(r.URL))
		if c := oneLine(r.Content); c != "" {
			fmt.Fprintf(&sb, "    %s\n", c)
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("These are only snippets. Read the most relevant result page before answering.")
	return sb.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
