package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mcpClient is a scripted MCP client over stdio: it starts `icm args...`
// in process, speaks JSON-RPC lines on its stdin and stdout, answers the
// server's own requests (elicitation) with answer, and keeps every
// notification it receives. Every stdout line must be an MCP frame.
type mcpClient struct {
	t      *testing.T
	in     *io.PipeWriter
	mu     sync.Mutex
	nextID int
	wait   map[float64]chan map[string]any
	notes  []map[string]any
	noted  chan struct{}
	// answer answers a request from the server (method, params); nil
	// answers every request with a JSON-RPC error.
	answer func(method string, params map[string]any) any
	stderr *bytes.Buffer
	done   chan int
}

// startMCP starts the server with the environment vars (nothing else of
// the process's) in dir and initializes it as the client name with caps.
func startMCP(t *testing.T, dir string, vars map[string]string, name string, caps map[string]any, args ...string) *mcpClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &mcpClient{t: t, in: inW, wait: map[float64]chan map[string]any{}, noted: make(chan struct{}, 100), stderr: &bytes.Buffer{}, done: make(chan int, 1)}
	env := &Env{Stdin: inR, Stdout: outW, Stderr: syncWriter{&c.mu, c.stderr},
		Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return dir, nil },
		Self: filepath.Join(t.TempDir(), "icm-not-built")}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- MainWith(ctx, env, args)
		outW.Close()
	}()
	go c.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			cancel()
			<-c.done
		}
		cancel()
	})
	if caps == nil {
		caps = map[string]any{}
	}
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": caps, "clientInfo": map[string]any{"name": name, "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// syncWriter guards a buffer the server writes from several goroutines.
type syncWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// send writes one frame; it may be called from any goroutine, so it
// reports rather than stops the test.
func (c *mcpClient) send(frame map[string]any) {
	b, err := json.Marshal(frame)
	if err != nil {
		c.t.Error(err)
		return
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Errorf("the server stopped reading: %v\n%s", err, c.stderrText())
	}
}

func (c *mcpClient) stderrText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// read dispatches the server's frames: answers to our requests, its own
// requests, and notifications.
func (c *mcpClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f["jsonrpc"] != "2.0" {
			c.t.Errorf("stdout line is not an MCP frame: %q", sc.Text())
			continue
		}
		method, isCall := f["method"].(string)
		id, hasID := f["id"]
		switch {
		case isCall && hasID:
			go c.reply(id, method, f)
		case isCall:
			c.mu.Lock()
			c.notes = append(c.notes, f)
			c.mu.Unlock()
			select {
			case c.noted <- struct{}{}:
			default:
			}
		default:
			n, _ := id.(float64)
			c.mu.Lock()
			ch := c.wait[n]
			c.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		}
	}
}

// reply answers a request from the server.
func (c *mcpClient) reply(id any, method string, f map[string]any) {
	params, _ := f["params"].(map[string]any)
	if c.answer == nil {
		c.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "not offered"}})
		return
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": c.answer(method, params)})
}

// request sends a request and returns its whole answer frame.
func (c *mcpClient) request(method string, params any) map[string]any {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan map[string]any, 1)
	c.wait[float64(id)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case f := <-ch:
		return f
	case <-time.After(2 * time.Minute):
		c.t.Fatalf("no answer to %s\n%s", method, c.stderrText())
	}
	return nil
}

// result is a request's result, failing on a JSON-RPC error.
func (c *mcpClient) result(method string, params any) map[string]any {
	c.t.Helper()
	f := c.request(method, params)
	res, ok := f["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s answered %v", method, f)
	}
	return res
}

// tool calls a tool and returns its text and whether it is an error.
func (c *mcpClient) tool(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	res := c.result("tools/call", map[string]any{"name": name, "arguments": args})
	var sb strings.Builder
	content, _ := res["content"].([]any)
	for _, x := range content {
		if txt, ok := x.(map[string]any)["text"].(string); ok {
			sb.WriteString(txt)
		}
	}
	isErr, _ := res["isError"].(bool)
	return sb.String(), isErr
}

// readResource returns the text of a resource.
func (c *mcpClient) readResource(uri string) string {
	c.t.Helper()
	res := c.result("resources/read", map[string]any{"uri": uri})
	contents, _ := res["contents"].([]any)
	if len(contents) != 1 {
		c.t.Fatalf("%s: %d contents", uri, len(contents))
	}
	text, _ := contents[0].(map[string]any)["text"].(string)
	return text
}

// notification waits for a notification of method whose params satisfy
// match, for at most wait; one that came before the call counts too.
func (c *mcpClient) notification(method string, match func(map[string]any) bool, wait time.Duration) map[string]any {
	c.t.Helper()
	return c.notificationAfter(0, method, match, wait)
}

// mark is how many notifications came so far, for notificationAfter.
func (c *mcpClient) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

// notificationAfter is notification counting only those that came after
// mark: a list that changes twice in a test sends its list_changed twice.
func (c *mcpClient) notificationAfter(mark int, method string, match func(map[string]any) bool, wait time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.After(wait)
	seen := mark
	for {
		c.mu.Lock()
		notes := c.notes[seen:]
		seen = len(c.notes)
		c.mu.Unlock()
		for _, n := range notes {
			p, _ := n["params"].(map[string]any)
			if n["method"] == method && (match == nil || match(p)) {
				return n
			}
		}
		select {
		case <-c.noted:
		case <-deadline:
			c.t.Fatalf("no %s notification within %s", method, wait)
			return nil
		}
	}
}

// names lists the "name" of each entry of a list result's key.
func names(res map[string]any, key string) []string {
	var out []string
	list, _ := res[key].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				out = append(out, n)
			} else if u, ok := m["uri"].(string); ok {
				out = append(out, u)
			}
		}
	}
	return out
}
