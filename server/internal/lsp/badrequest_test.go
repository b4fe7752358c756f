package lsp_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

// lockedLog keeps the server's log lines for a test to read.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestOneBadRequestOneCode: a bad request is answered with the same kind
// and JSON-RPC code whichever request carries it (a stage left out, a
// workspace the server does not know, a URI icm cannot read), and every
// error a handler returns has a kind of its own: none reaches the client
// as an unclassified failure (the server logs those).
func TestOneBadRequestOneCode(t *testing.T) {
	log := &lockedLog{}
	s := newSession(t, func(c *lsptest.Config) { c.Options.Log = log })
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)
	nowhere := filepath.FromSlash("/nowhere")
	cases := []struct {
		name, kind string
		code       int64
		call       func() error
	}{
		{"run a stage without the stage", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.runStage", map[string]any{"workspace": s.dir})
			return err
		}},
		{"compare without a stage or a path", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.compareOutput", map[string]any{"workspace": s.dir})
			return err
		}},
		{"a run's item without the item", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.runItem", map[string]any{"workspace": s.dir, "stage": "01-scope"})
			return err
		}},
		{"status of an unknown workspace", "not-found", -32602, func() error {
			_, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": nowhere})
			return err
		}},
		{"the context of a stage of an unknown workspace", "not-found", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "icm-context:" + filepath.ToSlash(filepath.Join(nowhere, "01-scope.md"))})
			return err
		}},
		{"a call of an unknown workspace", "not-found", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "icm-call:" + filepath.ToSlash(filepath.Join(nowhere, "r1", "01-scope", "0", "call-1.md"))})
			return err
		}},
		{"the model's version of a file of an unknown workspace", "not-found", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "icm-model:" + filepath.ToSlash(filepath.Join(nowhere, "output", "a.md"))})
			return err
		}},
		{"a document of another scheme", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "https://example.invalid/a.md"})
			return err
		}},
		{"a call URI of the wrong shape", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "icm-call:/a/b.md"})
			return err
		}},
		{"a context item that is no number", "invalid-request", -32602, func() error {
			_, err := s.ExecuteCommand("icm.virtualDocument", map[string]any{"uri": "icm-context:" + filepath.ToSlash(filepath.Join(s.dir, "01-scope.md")) + "?item=x"})
			return err
		}},
		{"the model's version of a stage that has not run", "not-run", -32803, func() error {
			_, err := s.ExecuteCommand("icm.compareOutput", map[string]any{"workspace": s.dir, "stage": "01-scope"})
			return err
		}},
		{"a hover in a document that is not open", "not-found", -32602, func() error {
			var res json.RawMessage
			return s.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": s.DocURI("pipeline/02-research/CONTEXT.md")},
				"position": map[string]any{"line": 0, "character": 0}}, &res)
		}},
		{"a hover in a document that is no file", "invalid-request", -32602, func() error {
			var res json.RawMessage
			return s.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1"},
				"position": map[string]any{"line": 0, "character": 0}}, &res)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			re, ok := lsptest.AsReplyError(err)
			if !ok {
				t.Fatalf("not an error reply: %v", err)
			}
			var data struct{ Kind string }
			if err := json.Unmarshal(re.Data, &data); err != nil {
				t.Fatalf("error data %s: %v", re.Data, err)
			}
			if re.Code != c.code || data.Kind != c.kind {
				t.Errorf("code %d, kind %q (%s), want %d and %q", re.Code, data.Kind, re.Message, c.code, c.kind)
			}
		})
	}
	if strings.Contains(log.String(), "has no kind") {
		t.Errorf("a handler returned an error without a kind:\n%s", log)
	}
}
