// Package search is icm's web-search MCP server: one tool, search, over a
// SearXNG instance's JSON API.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
)

// DefaultURL is where docker/compose.yml publishes SearXNG.
const DefaultURL = "http://localhost:8090"

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// Client queries a SearXNG instance. Its URL is operator configuration,
// not model input, so it is not held to the page reader's address policy.
type Client struct {
	// BaseURL is the SearXNG address, e.g. http://localhost:8090.
	BaseURL string
	// HTTP is the client to use; nil means one with a 20 s timeout.
	HTTP *http.Client
}

// maxBody caps a SearXNG answer; a page of results is a few tens of KiB.
const maxBody = 4 << 20

// UnavailableError is a SearXNG that could not answer usefully. Hint says
// what to do about it.
type UnavailableError struct {
	URL  string
	Msg  string
	Hint string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("search failed: SearXNG at %s %s. %s", e.URL, e.Msg, e.Hint)
}

// Fault is the search tool's server failing, with what to do about it.
func (e *UnavailableError) Fault() *fault.Error {
	return fault.ToolFailed(e.Error(), "", nil).WithHint("%s", e.Hint)
}

const startHint = "Start it with `docker compose -f docker/compose.yml up -d searxng` (from the icm repository), or point the search server at a running one: the SearXNG address in its server entry (config.toml [mcp.servers]), or SEARXNG_URL."

// Search asks SearXNG for query and returns up to n results.
func (c *Client) Search(ctx context.Context, query string, n int) ([]Result, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		base = DefaultURL
	}
	hc := c.HTTP
	if hc == nil {
		// SearXNG is the address this server's own command line (or
		// SEARXNG_URL) gives: the server was started, or not, by its
		// entry's permit.
		const why = "the search server's SearXNG"
		hc = act.HTTPClient(act.Own(why), act.Action{Kind: act.Contact, URL: base, Reason: why}, act.HTTP{Timeout: 20 * time.Second})
	}
	u := base + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &UnavailableError{URL: base, Msg: "is not a valid address (" + err.Error() + ")", Hint: "Check the SearXNG address in the search server's entry (config.toml [mcp.servers]), or SEARXNG_URL."}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnavailableError{URL: base, Msg: "is not reachable (" + shortNetErr(err) + ")", Hint: startHint}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return nil, &UnavailableError{URL: base, Msg: "refused the JSON format (HTTP 403)", Hint: "Enable it in SearXNG's settings.yml (search: formats: [html, json]), as docker/searxng/settings.yml does."}
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, &UnavailableError{URL: base, Msg: "is rate-limiting (HTTP 429)", Hint: "Turn its limiter off in settings.yml (server: limiter: false), as docker/searxng/settings.yml does."}
	case resp.StatusCode != http.StatusOK:
		return nil, &UnavailableError{URL: base, Msg: fmt.Sprintf("answered HTTP %d", resp.StatusCode), Hint: "Check SearXNG's logs."}
	}
	var body struct {
		Results []Result `json:"results"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&body); err != nil {
		return nil, &UnavailableError{URL: base, Msg: "sent an answer that is not SearXNG JSON (" + err.Error() + ")", Hint: "Check that the search server's SearXNG address (its entry in config.toml [mcp.servers]) points at SearXNG itself."}
	}
	var out []Result
	for _, r := range body.Results {
		if strings.TrimSpace(r.URL) == "" {
			continue
		}
		out = append(out, r)
		if len(out) == n {
			break
		}
	}
	return out, nil
}

// shortNetErr keeps the last, most specific part of a network error
// ("connection refused" rather than the whole dial chain).
func shortNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}
