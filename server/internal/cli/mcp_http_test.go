package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
)

func TestMCPSearchOverHTTP(t *testing.T) {
	fake := fakesearx.New(t, nil)
	// A free port: bind, note, release (the server binds it again).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	ctx, stop := context.WithCancel(t.Context())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"mcp", "search", "--http", addr, "--searxng", fake.URL}, strings.NewReader(""), &bytes.Buffer{}, errW)
		errW.Close()
	}()
	// The server says on stderr when it listens.
	sc := bufio.NewScanner(errR)
	for sc.Scan() && !strings.Contains(sc.Text(), "serving MCP over streamable HTTP") {
	}
	go io.Copy(io.Discard, errR)
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("exit %d", code)
		}
	}()

	c, err := client.NewStreamableHttpClient("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize over HTTP: %v", err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": "over http"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok || res.IsError || !strings.Contains(tc.Text, "[1] Result 1 for over http") {
		t.Fatalf("result = %+v", res)
	}
}
