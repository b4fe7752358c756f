package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/trust/trusttest"
	"github.com/icm-tool/icm/server/internal/wsmcp"
)

// submitOfSize is a submit_outputs request with id, exactly size bytes
// long (its line break not counted).
func submitOfSize(t *testing.T, id, size int) []byte {
	t.Helper()
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"submit_outputs","arguments":{"stage":"01-scope","context_id":"ctx-none","files":[{"path":"output/objectives.md","content":"`, id)
	tail := `"}]}}}`
	pad := size - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("a request of %d bytes cannot hold a submission", size)
	}
	return []byte(head + strings.Repeat("a", pad) + tail)
}

// rawRequest writes a request line the client made itself and waits for
// the answer to its id.
func (c *mcpClient) rawRequest(id int, line []byte) map[string]any {
	c.t.Helper()
	ch := make(chan map[string]any, 1)
	c.mu.Lock()
	c.wait[float64(id)] = ch
	c.mu.Unlock()
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatalf("the server stopped reading: %v\n%s", err, c.stderrText())
	}
	select {
	case f := <-ch:
		return f
	case <-time.After(2 * time.Minute):
		c.t.Fatalf("no answer to request %d\n%s", id, c.stderrText())
	}
	return nil
}

// tooLarge checks that a frame is the size cap's JSON-RPC error.
func tooLarge(t *testing.T, f map[string]any, what string) {
	t.Helper()
	e, _ := f["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(e["message"]), fmt.Sprint(wsmcp.MaxRequest)) || data["limit"] != float64(wsmcp.MaxRequest) {
		t.Errorf("%s was not refused as over the size cap: %v", what, f)
	}
}

// TestTheWorkspaceServerCapsARequestOverStdio: a request line one byte
// over wsmcp.MaxRequest is answered with a JSON-RPC error naming the cap
// (to its id) and never reaches a tool; the server goes on serving, and
// a request of exactly the cap reaches the tool.
func TestTheWorkspaceServerCapsARequestOverStdio(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	c := startMCP(t, dir, agentVars(t), "big", nil, "mcp", "workspace")
	tooLarge(t, c.rawRequest(900001, submitOfSize(t, 900001, wsmcp.MaxRequest+1)), "a line one byte over the cap")
	if text, isErr := c.tool("status", nil); isErr || !strings.Contains(text, "01-scope") {
		t.Fatalf("after an over-size line the server does not serve: %s", text)
	}
	f := c.rawRequest(900002, submitOfSize(t, 900002, wsmcp.MaxRequest))
	res, _ := f["result"].(map[string]any)
	if f["error"] != nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "ctx-none") {
		t.Errorf("a request of exactly the cap did not reach submit_outputs: %.300v", f)
	}
}

// TestTheWorkspaceServerCapsARequestOverHTTP: over HTTP a body one byte
// over wsmcp.MaxRequest gets 413 with the JSON-RPC error (to its id), a
// body said to be larger is refused without being read, and the server
// goes on serving.
func TestTheWorkspaceServerCapsARequestOverHTTP(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	ctx, stop := context.WithCancel(t.Context())
	url, done := serveOverHTTP(t, ctx, "-w", dir, "mcp", "workspace")
	defer func() {
		stop()
		<-done
	}()
	token := workspaceToken(t, trusttest.ConfigDir(t))
	auth := map[string]string{"Authorization": "Bearer " + token}
	over := submitOfSize(t, 7, wsmcp.MaxRequest+1)
	code, f := postMCP(t, ctx, url, bytes.NewReader(over), int64(len(over)), auth)
	if code != http.StatusRequestEntityTooLarge || f["id"] != float64(7) {
		t.Errorf("a body one byte over the cap: status %d, %v", code, f)
	}
	tooLarge(t, f, "a body one byte over the cap")

	// A body said to be 400 MB, of which the first 80 KiB are sent: it is
	// refused from those, unread. (Over a connection of the test's own: a
	// client still sending could miss the answer.)
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"` + strings.Repeat("a", 80<<10)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", token, 400<<20, head)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a body said to be 400 MB: %v", err)
	}
	f = nil
	_ = json.NewDecoder(res.Body).Decode(&f)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge || f["id"] != float64(8) {
		t.Errorf("a body said to be 400 MB: status %d, %v", res.StatusCode, f)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"after","version":"1"}}}`
	if code, f := postMCP(t, ctx, url, strings.NewReader(init), int64(len(init)), auth); code != http.StatusOK || f["result"] == nil {
		t.Errorf("after over-size bodies the server does not serve: %d %v", code, f)
	}
}
