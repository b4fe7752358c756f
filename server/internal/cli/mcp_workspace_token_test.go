package cli

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// workspaceToken reads the workspace server's token from the config
// folder cfg, checking that only its owner may read the file.
func workspaceToken(t *testing.T, cfg string) string {
	t.Helper()
	file := filepath.Join(cfg, "mcp-token")
	info, err := os.Lstat(file)
	if err != nil {
		t.Fatalf("no token file: %v", err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Fatalf("the token file is %v, want a regular file of mode 0600", info.Mode())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// TestWorkspaceServerOverHTTPAsksForItsToken: over HTTP the workspace
// server asks every request for the token kept in the person's config
// folder (made on first use, a file only they can read): a request
// without it, with another, or with it under another scheme gets 401;
// with it, the request is served. The token stays the same from one
// start to the next. A token file others can read stops the server.
func TestWorkspaceServerOverHTTPAsksForItsToken(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	ctx, stop := context.WithCancel(t.Context())
	url, done := serveOverHTTP(t, ctx, "-w", dir, "mcp", "workspace")
	token := workspaceToken(t, trusttest.ConfigDir(t))
	if len(token) < 32 {
		t.Fatalf("the token %q is too short to be a secret", token)
	}

	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"other","version":"1"}}}`
	post := func(auth string) int {
		headers := map[string]string{}
		if auth != "" {
			headers["Authorization"] = auth
		}
		code, _ := postMCP(t, ctx, url, strings.NewReader(body), int64(len(body)), headers)
		return code
	}
	// The same length, one character off.
	last := "A"
	if strings.HasSuffix(token, "A") {
		last = "B"
	}
	wrong := token[:len(token)-1] + last
	for _, auth := range []string{"", "Bearer", "Bearer wrong", "Bearer " + wrong, "Bearer " + token + "x", "Basic " + token, token} {
		if code := post(auth); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, code)
		}
	}
	if code := post("Bearer " + token); code != http.StatusOK {
		t.Errorf("with the token: status %d, want 200", code)
	}

	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "local", Version: "1"}
	without, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := without.Initialize(ctx, init); err == nil {
		t.Error("a client without the token was served")
	}
	without.Close()
	with, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := with.Initialize(ctx, init); err != nil {
		t.Fatalf("a client with the token: %v", err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "status"
	if res, err := with.CallTool(ctx, req); err != nil || res.IsError {
		t.Errorf("status with the token: %+v, %v", res, err)
	}
	with.Close()
	stop()
	<-done

	// Started again, it asks for the same token.
	ctx, stop = context.WithCancel(t.Context())
	url, done = serveOverHTTP(t, ctx, "-w", dir, "mcp", "workspace")
	if again := workspaceToken(t, trusttest.ConfigDir(t)); again != token {
		t.Error("a second start made another token")
	}
	stop()
	<-done

	// A token others can read is refused; the server does not start.
	file := filepath.Join(trusttest.ConfigDir(t), "mcp-token")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	run, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	code := Main(run, []string{"-w", dir, "mcp", "workspace", "--http", "127.0.0.1:0"}, strings.NewReader(""), &bytes.Buffer{}, &errOut)
	if code == 0 || run.Err() != nil || !strings.Contains(errOut.String(), file) || !strings.Contains(errOut.String(), "chmod 600") {
		t.Errorf("a token file others can read (exit %d, timed out %v):\n%s", code, run.Err() != nil, errOut.String())
	}
}
