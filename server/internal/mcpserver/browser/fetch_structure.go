package browser

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// FetchStructure returns the fetch_structure tool: a page's outline.
func FetchStructure(pages PageLoader) (mcp.Tool, server.ToolHandlerFunc) {
	return pageTool(pages, "fetch_structure",
		`Show the outline of a web page: its headings (h1 to h6), indented by level. Use it to see what a long page covers and whether the section you need is there, before reading it with summarize (give the section as the question) or extract.`,
		"Full address of the page, starting with http:// or https://.",
		func(p *Page) string { return formatOutline(p.Headings) })
}

func formatOutline(hs []Heading) string {
	if len(hs) == 0 {
		return "The page has no headings; read its start with fetch_snippet."
	}
	var sb strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&sb, "%sh%d %s\n", strings.Repeat("  ", h.Level-1), h.Level, h.Text)
	}
	return strings.TrimRight(sb.String(), "\n")
}
