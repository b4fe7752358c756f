package browser

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxLinks caps the links listed; a page with more says how many it left out.
const maxLinks = 300

// FetchURLs returns the fetch_urls tool: the links of a page.
func FetchURLs(pages PageLoader) (mcp.Tool, server.ToolHandlerFunc) {
	return pageTool(pages, "fetch_urls",
		`List the links on a web page (label and full URL), once each, in page order. Use it to find the next page to read: a chapter of a manual, a related article, the next page of results. It does not show the page's text; read a chosen link with fetch_snippet or summarize.`,
		"Full address of the page whose links to list, starting with http:// or https://.",
		func(p *Page) string { return formatLinks(p.Links) })
}

func formatLinks(links []Link) string {
	if len(links) == 0 {
		return "The page has no links."
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d links:\n", len(links))
	for i, l := range links {
		if i == maxLinks {
			fmt.Fprintf(&sb, "[%d more links not shown]\n", len(links)-maxLinks)
			break
		}
		label := l.Text
		if label == "" {
			label = "(no label)"
		}
		fmt.Fprintf(&sb, "%d. %s\n   %s\n", i+1, label, l.URL)
	}
	return strings.TrimRight(sb.String(), "\n")
}
