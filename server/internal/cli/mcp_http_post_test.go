package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// postMCP posts body (length bytes, -1 when untold) to an MCP server's
// url as a streamable HTTP client would, with headers ("Host" sets the
// request's host), and returns the status and the answer as JSON (nil
// when it is not).
func postMCP(t *testing.T, ctx context.Context, url string, body io.Reader, length int64, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var f map[string]any
	if json.NewDecoder(res.Body).Decode(&f) != nil {
		f = nil
	}
	return res.StatusCode, f
}
