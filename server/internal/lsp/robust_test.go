package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// raw drives a server with hand-written bytes, to send what no well-behaved
// client would.
type raw struct {
	t    *testing.T
	conn net.Conn
	msgs chan map[string]any
	exit chan int
}

func startRaw(t *testing.T, opts lsp.Options) *raw {
	t.Helper()
	client, server := net.Pipe()
	opts.Log = io.Discard
	if opts.Self == "" {
		opts.Self = icmBin
	}
	r := &raw{t: t, conn: client, msgs: make(chan map[string]any, 100), exit: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { r.exit <- lsp.New(opts).Serve(ctx, server) }()
	go r.read()
	t.Cleanup(func() {
		client.Close()
		cancel()
		<-r.exit
	})
	return r
}

// read parses every frame the server writes; anything else fails the test
// (stdout must carry only frames).
func (r *raw) read() {
	br := bufio.NewReader(r.conn)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			close(r.msgs)
			return
		}
		if !strings.HasPrefix(line, "Content-Length: ") || !strings.HasSuffix(line, "\r\n") {
			r.t.Errorf("server wrote something that is not a frame header: %q", line)
			close(r.msgs)
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		if blank, _ := br.ReadString('\n'); blank != "\r\n" {
			r.t.Errorf("no blank line after the header: %q", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			close(r.msgs)
			return
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			r.t.Errorf("server wrote a body that is not JSON: %q", body)
		}
		r.msgs <- m
	}
}

func (r *raw) sendBytes(b string) {
	r.t.Helper()
	if _, err := r.conn.Write([]byte(b)); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func (r *raw) send(body string) {
	r.t.Helper()
	r.sendBytes(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// reply waits for the response with the id (JSON number or null), skipping
// notifications and requests from the server.
func (r *raw) reply(id any) map[string]any {
	r.t.Helper()
	m, open := r.tryReply(id)
	if !open {
		r.t.Fatalf("the server closed the connection while a reply to %v was due", id)
	}
	return m
}

// tryReply is reply that reports a closed connection instead of failing.
func (r *raw) tryReply(id any) (map[string]any, bool) {
	r.t.Helper()
	deadline := time.After(lsptest.Timeout)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				return nil, false
			}
			if _, isReq := m["method"]; isReq {
				continue
			}
			if fmt.Sprint(m["id"]) == fmt.Sprint(id) {
				return m, true
			}
			r.t.Logf("other reply: %v", m)
		case <-deadline:
			r.t.Fatalf("no reply to %v", id)
			return nil, false
		}
	}
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func (r *raw) initialize(root string) {
	r.t.Helper()
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, lsptest.URI(root)))
	if m := r.reply(1); m["error"] != nil {
		r.t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

func TestRobustness(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	uri := lsptest.URI(dir + "/" + scope)
	r := startRaw(t, lsp.Options{})

	r.send(`{"jsonrpc":"2.0","id":100,"method":"textDocument/hover","params":{}}`)
	if m := r.reply(100); errCode(m) != -32002 {
		t.Errorf("request before initialize: %v, want -32002", m)
	}
	r.initialize(dir)

	steps := []struct {
		name  string
		frame string // raw bytes; a body alone is framed
		body  bool
		id    any
		code  int
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":2,"method":`, true, nil, -32700},
		{"not a message", `[1,2,3]`, true, nil, -32600},
		{"no Content-Length", "Content-Type: x\r\n\r\n", false, nil, -32700},
		{"bad Content-Length", "Content-Length: ten\r\n\r\n", false, nil, -32700},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"icm/nothing","params":{}}`, true, 3, -32601},
		{"wrong-typed params", `{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":7},"position":"x"}}`, true, 4, -32602},
		{"null params", `{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":null}`, true, 5, -32602},
		{"hover on a closed document", fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}}`, uri), true, 6, -32602},
		{"codeLens/resolve", `{"jsonrpc":"2.0","id":7,"method":"codeLens/resolve","params":{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}}`, true, 7, 0},
		{"executeCommand without arguments", `{"jsonrpc":"2.0","id":8,"method":"workspace/executeCommand","params":{"command":"icm.status"}}`, true, 8, 0},
		{"position past the end", fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"textDocument/completion","params":{"textDocument":{"uri":%q},"position":{"line":4000000000,"character":0}}}`, uri), true, 9, -32602},
	}
	for _, st := range steps {
		if st.body {
			r.send(st.frame)
		} else {
			r.sendBytes(st.frame)
		}
		if m := r.reply(st.id); errCode(m) != st.code {
			t.Errorf("%s: reply %v, want code %d", st.name, m, st.code)
		}
	}

	// Notifications clients always send are accepted silently; an unknown
	// one is ignored; a change to a document that is not open is refused
	// without harm.
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}`,
		`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}`,
		`{"jsonrpc":"2.0","method":"icm/unknownNotification","params":{}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, uri),
		fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":3},"contentChanges":[{"text":"x"}]}}`, uri),
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"http://example.org/x.md","version":1,"text":""}}}`,
	} {
		r.send(n)
	}
	// Still serving: a real request gets its answer.
	r.send(`{"jsonrpc":"2.0","id":20,"method":"workspace/symbol","params":{"query":"scope"}}`)
	m := r.reply(20)
	if m["error"] != nil || !strings.Contains(fmt.Sprint(m["result"]), "01-scope") {
		t.Errorf("after the bad messages: %v", m)
	}

	r.send(`{"jsonrpc":"2.0","id":21,"method":"shutdown"}`)
	if m := r.reply(21); m["error"] != nil {
		t.Errorf("shutdown: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":22,"method":"textDocument/hover","params":{}}`)
	if m := r.reply(22); errCode(m) != -32600 {
		t.Errorf("request after shutdown: %v, want -32600", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := <-r.exit; code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
	r.exit <- 0
}

func TestPanickingHandlerAndSlowRequest(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	release := make(chan struct{})
	r := startRaw(t, lsp.Options{BeforeHandle: func(ctx context.Context, method string) {
		switch method {
		case "workspace/symbol":
			panic("injected")
		case "textDocument/documentSymbol":
			select { // slow until cancelled
			case <-ctx.Done():
			case <-release:
			}
		}
	}})
	defer close(release)
	r.initialize(dir)

	r.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/symbol","params":{"query":""}}`)
	if m := r.reply(2); errCode(m) != -32603 || !strings.Contains(fmt.Sprint(m["error"]), "injected") {
		t.Errorf("panicking handler: %v, want -32603", m)
	}

	r.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///x/CONTEXT.md"}}}`)
	// The slow request does not hold up the next one...
	r.send(`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"icm.status","arguments":[{}]}}`)
	if m := r.reply(4); m["error"] != nil {
		t.Errorf("request behind a slow one: %v", m)
	}
	// ...and cancelling it ends it with RequestCancelled.
	r.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)
	if m := r.reply(3); errCode(m) != -32800 {
		t.Errorf("cancelled request: %v, want -32800", m)
	}
	r.send(`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`)
	r.reply(5)
}

func TestExitCodes(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	t.Run("exit without shutdown", func(t *testing.T) {
		r := startRaw(t, lsp.Options{})
		r.initialize(dir)
		r.send(`{"jsonrpc":"2.0","method":"exit"}`)
		if code := <-r.exit; code != 1 {
			t.Errorf("code %d, want 1", code)
		}
		r.exit <- 1
	})
	t.Run("end of input", func(t *testing.T) {
		r := startRaw(t, lsp.Options{})
		r.initialize(dir)
		r.conn.Close()
		if code := <-r.exit; code != 1 {
			t.Errorf("code %d, want 1", code)
		}
		r.exit <- 1
	})
}

// FuzzSession sends one arbitrary message body to an initialized server and
// checks that it still answers a request afterwards. Its seeds run in every
// `go test`; for long fuzzing of the wire format use FuzzFrameStream, which
// is cheap per input (this target starts a whole server per input).
func FuzzSession(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x"},"position":{"line":0,"character":0}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":"s","method":"workspace/executeCommand","params":{"command":"icm.probe","arguments":[{"stage":"01-scope"}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"codeLens/resolve","params":null}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"id":1,"result":null}`,
	} {
		f.Add(seed)
	}
	dir := wstest.Copy(f, "course-research")
	f.Fuzz(func(t *testing.T, body string) {
		r := startRaw(t, lsp.Options{})
		r.initialize(dir)
		r.send(body)
		r.send(`{"jsonrpc":"2.0","id":"probe","method":"workspace/symbol","params":{"query":""}}`)
		m, open := r.tryReply("probe")
		switch {
		case !open && !strings.Contains(body, `"exit"`):
			t.Fatalf("the server closed the connection after %q", body)
		case open && m["error"] != nil && !strings.Contains(body, `"shutdown"`):
			t.Fatalf("the server stopped answering after %q: %v", body, m)
		}
	})
}
