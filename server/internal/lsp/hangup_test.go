package lsp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// awaitRequest waits for a request the server makes of the client and
// returns its id, skipping everything else.
func (r *raw) awaitRequest(method string) any {
	r.t.Helper()
	deadline := time.After(lsptest.Timeout)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				r.t.Fatalf("the server closed the connection before asking for %s", method)
			}
			if m["method"] == method && m["id"] != nil {
				return m["id"]
			}
		case <-deadline:
			r.t.Fatalf("the server never asked for %s", method)
		}
	}
}

// TestExitWithTheClientsAnswerStillUnread is a client that answers one of
// the server's requests right after sending exit, both in one write: the
// server reads exit and hangs up with its request still waiting, while the
// answer already sits in its read buffer. Reading that answer after the
// hang-up made jsonrpc2 deliver it to a call it had already closed: a
// "send on closed channel" panic that ended the process.
func TestExitWithTheClientsAnswerStillUnread(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	r := startRaw(t, lsp.Options{})
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,`+
		`"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`, lsptest.URI(dir)))
	r.reply(1)
	r.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	id := r.awaitRequest("client/registerCapability")
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":null}`, id)
	r.sendBytes(fmt.Sprintf("Content-Length: %d\r\n\r\n%sContent-Length: %d\r\n\r\n%s", len(exit), exit, len(answer), answer))
	select {
	case code := <-r.exit:
		if code != 1 {
			t.Errorf("exit without shutdown: code %d, want 1", code)
		}
		r.exit <- code
	case <-time.After(lsptest.Timeout):
		t.Fatal("the server did not stop after exit")
	}
}
