package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/mark3labs/mcp-go/mcp"
)

// toolError turns a failure into a result the model reads (isError), with
// what to do next where there is something to do.
func toolError(url string, err error) *mcp.CallToolResult {
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("reading %s took too long and was stopped; try another page", url)
	case errors.Is(err, ErrNoModel):
	case fault.From(err).Kind.OfModel():
		msg = "the model could not read the page: " + msg
		if h := fault.From(err).Hint; h != "" {
			msg += " (" + h + ")"
		}
	}
	if url != "" && !strings.Contains(msg, url) {
		msg = fmt.Sprintf("%s: %s", url, msg)
	}
	return mcp.NewToolResultError(msg)
}

// urlArg reads the required url argument.
func urlArg(req mcp.CallToolRequest) (string, *mcp.CallToolResult) {
	u, err := req.RequireString("url")
	if err != nil || strings.TrimSpace(u) == "" {
		return "", mcp.NewToolResultError(`the "url" argument is required: the full address of the page, starting with https://`)
	}
	return strings.TrimSpace(u), nil
}

// header names the page a result comes from.
func header(p *Page) string {
	if p.Title != "" {
		return fmt.Sprintf("Page: %s\nURL: %s\n\n", p.Title, p.URL)
	}
	return fmt.Sprintf("URL: %s\n\n", p.URL)
}
