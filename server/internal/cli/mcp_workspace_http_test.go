package cli

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// TestWorkspaceServerOverHTTPIsLocalOnly: the workspace server writes
// outputs and runs stages, so over HTTP it listens on a loopback address
// only, and a request another site's page makes through the person's
// browser (a Host or an Origin that is not this machine's, as DNS
// rebinding gives) is refused, token or not; an MCP client on the
// machine with the token is served.
func TestWorkspaceServerOverHTTPIsLocalOnly(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	vars := agentVars(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:8765"} {
		_, errOut, code := runAsUser(t, dir, vars, "mcp", "workspace", "--http", addr)
		if code == 0 || !strings.Contains(errOut, "loopback") {
			t.Errorf("--http %s (exit %d): %s", addr, code, errOut)
		}
	}

	ctx, stop := context.WithCancel(t.Context())
	url, done := serveOverHTTP(t, ctx, "-w", dir, "mcp", "workspace")
	defer func() {
		stop()
		<-done
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	token := workspaceToken(t, trusttest.ConfigDir(t))

	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`
	post := func(host, origin string) int {
		headers := map[string]string{"Authorization": "Bearer " + token}
		if host != "" {
			headers["Host"] = host
		}
		if origin != "" {
			headers["Origin"] = origin
		}
		code, _ := postMCP(t, ctx, "http://"+addr+"/mcp", strings.NewReader(body), int64(len(body)), headers)
		return code
	}
	_, port, _ := net.SplitHostPort(addr)
	for _, tc := range []struct{ host, origin string }{
		{"evil.example:" + port, ""},
		{"", "http://evil.example"},
		{"", "null"},
	} {
		if code := post(tc.host, tc.origin); code != http.StatusForbidden {
			t.Errorf("Host %q, Origin %q: status %d, want 403", tc.host, tc.origin, code)
		}
	}
	for _, tc := range []struct{ host, origin string }{
		{"", ""},
		{"localhost:" + port, "http://localhost:" + port},
		{"", "http://127.0.0.1:" + port},
	} {
		if code := post(tc.host, tc.origin); code != http.StatusOK {
			t.Errorf("Host %q, Origin %q: status %d, want 200", tc.host, tc.origin, code)
		}
	}

	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "local", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize over HTTP: %v", err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "status"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := mcp.AsTextContent(res.Content[0]); !ok || res.IsError || !strings.Contains(tc.Text, "01-scope: pending") {
		t.Fatalf("status over HTTP: %+v", res)
	}
}
