package lsp_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

// The protocol surface, pinned as exact JSON (as terraform-ls pins its
// hovers): the answers to the key requests and the key errors, with the
// workspace's path and the model server's address written as $WORKSPACE
// and $OLLAMA. A change to what a client reads fails these tests until
// testdata/surface/ is rewritten with -update, so it is a reviewed diff.

// surface writes raw (a result or an error reply) with the session's
// paths replaced, indented, as the golden file testdata/surface/NAME.json.
func surface(t *testing.T, s *session, name string, raw []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, raw)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// JSON escapes nothing in these paths, so plain replacement is exact.
	text := strings.ReplaceAll(string(out), s.dir, "$WORKSPACE")
	text = strings.ReplaceAll(text, s.ollama.URL(), "$OLLAMA")
	goldenFile(t, "server/internal/lsp/testdata/surface/"+name+".json", []byte(text+"\n"))
}

// replyOf is an error reply as JSON: code, message and data.
func replyOf(t *testing.T, err error) []byte {
	t.Helper()
	re, ok := lsptest.AsReplyError(err)
	if !ok {
		t.Fatalf("not an error reply: %v", err)
	}
	b, _ := json.Marshal(map[string]any{"code": re.Code, "message": re.Message, "data": re.Data})
	return b
}

func TestProtocolSurface(t *testing.T) {
	s := newSession(t)
	s.Open(scope)
	s.AwaitDiagnostics(scope, "analysed", lsptest.None)

	t.Run("initialize", func(t *testing.T) {
		surface(t, s, "initialize", s.InitializeResult())
	})
	t.Run("hover on an input", func(t *testing.T) {
		var res json.RawMessage
		err := s.TextDocumentCall("textDocument/hover", scope, map[string]any{"position": s.Pos(scope, "input.md", 2)}, &res)
		if err != nil {
			t.Fatal(err)
		}
		surface(t, s, "hover-input", res)
	})
	t.Run("code lenses", func(t *testing.T) {
		var res json.RawMessage
		if err := s.TextDocumentCall("textDocument/codeLens", scope, nil, &res); err != nil {
			t.Fatal(err)
		}
		surface(t, s, "codelens", res)
	})
	t.Run("icm.status", func(t *testing.T) {
		raw, err := s.ExecuteCommand("icm.status", map[string]any{"workspace": s.dir})
		if err != nil {
			t.Fatal(err)
		}
		// A stage's whole count takes in its tool definitions once its
		// servers are listed, which happens in the background: the shape
		// is pinned, the figure is not.
		raw = regexp.MustCompile(`"stageTokens":\s*\d+`).ReplaceAll(raw, []byte(`"stageTokens": 0`))
		// The grant's time is the test's.
		raw = regexp.MustCompile(` on \d{4}-\d\d-\d\d \d\d:\d\d\)`).ReplaceAll(raw, []byte(" on $$TIME)"))
		surface(t, s, "status", raw)
	})
	errs := []struct {
		name    string
		command string
		args    map[string]any
	}{
		{"error-unknown-command", "icm.frobnicate", map[string]any{"workspace": s.dir}},
		{"error-needs-a-stage", "icm.runStage", map[string]any{"workspace": s.dir}},
		{"error-unknown-workspace", "icm.status", map[string]any{"workspace": "/nowhere"}},
		{"error-unknown-stage", "icm.approveStage", map[string]any{"workspace": s.dir, "stage": "09-x"}},
		{"error-not-run", "icm.approveStage", map[string]any{"workspace": s.dir, "stage": "01-scope"}},
	}
	for _, e := range errs {
		t.Run(e.name, func(t *testing.T) {
			_, err := s.ExecuteCommand(e.command, e.args)
			if err == nil {
				t.Fatalf("%s succeeded", e.command)
			}
			raw := replyOf(t, err)
			if bytes.Contains(raw, []byte("--force")) {
				t.Errorf("an editor error names a flag: %s", raw)
			}
			surface(t, s, e.name, raw)
		})
	}
}
