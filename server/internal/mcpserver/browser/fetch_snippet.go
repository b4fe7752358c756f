package browser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultSnippetChars is how much of a page fetch_snippet shows.
const DefaultSnippetChars = 4000

// FetchSnippet returns the fetch_snippet tool: the top of a page's main
// content as Markdown.
func FetchSnippet(pages PageLoader, chars int) (mcp.Tool, server.ToolHandlerFunc) {
	if chars <= 0 {
		chars = DefaultSnippetChars
	}
	return pageTool(pages, "fetch_snippet",
		fmt.Sprintf(`Read the beginning of a web page (about %d characters of its main text, as Markdown). Use it first, to check what a page is about, or when the answer is likely near the top. It does NOT show the whole page: to learn what a long page says use summarize, and to pull specific facts out of it use extract.`, chars),
		"Full address of the page, starting with http:// or https:// (for example a URL from a search result).",
		func(p *Page) string {
			if strings.TrimSpace(p.Markdown) == "" {
				return "The page has no readable text (it may need a browser to run its scripts)."
			}
			return snippet(p.Markdown, chars)
		})
}

// snippet cuts md to about n characters at a paragraph, line or word
// boundary and says so when it did.
func snippet(md string, n int) string {
	total := utf8.RuneCountInString(md)
	if total <= n {
		return md
	}
	r := []rune(md)
	head := string(r[:n])
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(head, sep); i > len(head)/2 {
			head = head[:i]
			break
		}
	}
	return fmt.Sprintf("%s\n\n[Only the first %d of %d characters are shown. For the whole page use summarize; for specific facts use extract.]", strings.TrimSpace(head), utf8.RuneCountInString(head), total)
}
