package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/testutil/fakesearx"
)

func TestMCPSearchOverHTTP(t *testing.T) {
	fake := fakesearx.New(t, nil)
	ctx, stop := context.WithCancel(t.Context())
	url, done := serveOverHTTP(t, ctx, "mcp", "search", "--searxng", fake.URL)
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("exit %d", code)
		}
	}()

	c, err := client.NewStreamableHttpClient(url)
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

// serveOverHTTP runs icm with args and --http 127.0.0.1:0 until ctx ends,
// and returns the URL it serves, as its log says, and its exit code to
// come. The server binds the port itself: a port a test picked and let go
// of could be taken by another process before the server binds it.
func serveOverHTTP(t *testing.T, ctx context.Context, args ...string) (string, <-chan int) {
	t.Helper()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append(args, "--http", "127.0.0.1:0"), strings.NewReader(""), &bytes.Buffer{}, errW)
		errW.Close()
	}()
	// The server says on stderr when it listens, and where.
	serving := regexp.MustCompile(`serving MCP over streamable HTTP.* url=(http://\S+/mcp)`)
	var said strings.Builder
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, errR)
			return m[1], done
		}
	}
	t.Fatalf("icm %s did not serve over HTTP (exit %d):\n%s", strings.Join(args, " "), <-done, said.String())
	return "", nil
}
