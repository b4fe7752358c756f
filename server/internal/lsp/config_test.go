package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

type configItem struct {
	Label         string `json:"label"`
	Detail        string `json:"detail"`
	Documentation struct {
		Value string `json:"value"`
	} `json:"documentation"`
	TextEdit struct {
		NewText string         `json:"newText"`
		Range   protocol.Range `json:"range"`
	} `json:"textEdit"`
	InsertTextFormat int `json:"insertTextFormat"`
}

func completeAt(t *testing.T, s *session, file, at string, delta int) []configItem {
	t.Helper()
	var items []configItem
	if err := s.TextDocumentCall("textDocument/completion", file, map[string]any{"position": s.Pos(file, at, delta)}, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

func labels(items []configItem) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	return strings.Join(out, ",")
}

// TestConfigDiagnostics: a model name with a slip in config.toml gets a
// squiggle on its value that names the installed model meant (from the
// model server's /api/tags), and an unknown key one with the key meant;
// fixing them clears the file.
func TestConfigDiagnostics(t *testing.T) {
	s := newSession(t)
	const cfg = "config.toml"
	s.Open(cfg)
	s.AwaitDiagnostics(cfg, "the sample config is clean", lsptest.None)
	s.Edit(cfg, `name = "qwen3.5:9b"`, `name = "qwen3.5:9"`)
	ds := s.AwaitDiagnostics(cfg, "the model typo", lsptest.HasCode("config-model-missing"))
	d := ds[0]
	if !strings.Contains(d.Message, `did you mean "qwen3.5:9b"?`) || d.Data["suggest"] != "qwen3.5:9b" || d.Severity != 2 {
		t.Errorf("model diagnostic: %+v", d)
	}
	if want := s.Pos(cfg, `"qwen3.5:9"`, 0); d.Range.Start != want {
		t.Errorf("the squiggle starts at %+v, want the value at %+v", d.Range.Start, want)
	}
	s.Edit(cfg, "temperature = 0.1", "temprature = 0.1")
	ds = s.AwaitDiagnostics(cfg, "the unknown key too", func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	var unknown *lsptest.Diagnostic
	for i := range ds {
		if ds[i].Code == "config-unknown-key" {
			unknown = &ds[i]
		}
	}
	if unknown == nil || !strings.Contains(unknown.Message, `did you mean "temperature"?`) {
		t.Errorf("unknown key diagnostic: %+v", ds)
	}
	// The quick fixes write what was meant.
	fixes := codeActions(t, s, cfg, `"qwen3.5:9"`)
	if len(fixes) != 1 || fixes[0].Title != `Use "qwen3.5:9b"` || fixes[0].Edit.Changes[s.DocURI(cfg)][0].NewText != `"qwen3.5:9b"` {
		t.Errorf("model fixes = %+v", fixes)
	}
	fixes = codeActions(t, s, cfg, "temprature")
	if len(fixes) != 1 || fixes[0].Title != "Change the key to temperature" || fixes[0].Edit.Changes[s.DocURI(cfg)][0].NewText != "temperature" {
		t.Errorf("key fixes = %+v", fixes)
	}
	s.Edit(cfg, `name = "qwen3.5:9"`, `name = "qwen3.5:9b"`)
	s.Edit(cfg, "temprature = 0.1", "temperature = 0.1")
	s.AwaitDiagnostics(cfg, "fixed", lsptest.None)
}

// TestConfigCompletionAndHover: keys of the table the cursor is in that
// are not set there yet, each writing its value to fill (a choice, both
// quotes); the installed models for [model] name and the allowed values
// of an enumerated key, replacing the whole value; and a hover with each
// key's doc.
func TestConfigCompletionAndHover(t *testing.T) {
	s := newSession(t)
	const cfg = "config.toml"
	s.Open(cfg)
	s.AwaitDiagnostics(cfg, "analysed", lsptest.None)

	// A new line in [model] completes [model] keys, with their docs.
	s.Edit(cfg, "think = false\n", "think = false\nnu\n")
	items := completeAt(t, s, cfg, "nu\n", 2)
	got := labels(items)
	for _, want := range []string{"num_ctx", "max_output", "provider"} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Errorf("[model] keys %q lack %s", got, want)
		}
	}
	// Keys set already, another table's, and the table written as its own
	// [[model.servers]] are not offered.
	for _, not := range []string{"name", "temperature", "think", "gate", "servers"} {
		if strings.Contains(","+got+",", ","+not+",") {
			t.Errorf("[model] keys %q offer %s", got, not)
		}
	}
	for _, it := range items {
		switch it.Label {
		case "num_ctx":
			if it.TextEdit.NewText != "num_ctx = ${1:0}" || it.InsertTextFormat != 2 || !strings.Contains(it.Documentation.Value, "context window") {
				t.Errorf("num_ctx item: %+v", it)
			}
		case "provider":
			if it.TextEdit.NewText != `provider = "${1|ollama,openai|}"` || it.InsertTextFormat != 2 {
				t.Errorf("provider item: %+v", it)
			}
		}
	}
	// The model's value completes the models the server has, replacing
	// the whole value with its quotes.
	items = completeAt(t, s, cfg, `"qwen3.5:9b"`, 1)
	if got := labels(items); got != "qwen3.5:9b" || items[0].TextEdit.NewText != `"qwen3.5:9b"` || items[0].Detail != "installed on the model server" {
		t.Errorf("model names = %+v", items)
	}
	if r := items[0].TextEdit.Range; r.Start != s.Pos(cfg, `"qwen3.5:9b"`, 0) || r.End != s.Pos(cfg, `"qwen3.5:9b"`, len(`"qwen3.5:9b"`)) {
		t.Errorf("the model name replaces %+v, not the whole value", r)
	}
	// An enumerated value completes its values, the closing quote replaced
	// too (no quote is left over).
	items = completeAt(t, s, cfg, `gate = "explicit"`, 8)
	if got := labels(items); got != "explicit,rerun" || items[1].TextEdit.NewText != `"rerun"` {
		t.Errorf("gate values = %+v", items)
	}
	if r := items[1].TextEdit.Range; r.Start != s.Pos(cfg, `gate = "explicit"`, 7) || r.End != s.Pos(cfg, `gate = "explicit"`, len(`gate = "explicit"`)) {
		t.Errorf("a gate value replaces %+v, not the whole value", r)
	}
	// A boolean's values.
	if got := labels(completeAt(t, s, cfg, "think = false", len("think = "))); got != "true,false" {
		t.Errorf("think values = %q", got)
	}
	// Hovers document the key.
	h, err := s.Hover(cfg, s.Pos(cfg, "max_tool_calls", 2))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, "**workflow.max_tool_calls** · integer, default 24") || !strings.Contains(h, "Bounds the tool calls") {
		t.Errorf("hover = %q", h)
	}
	h, _ = s.Hover(cfg, s.Pos(cfg, "name = ", 1))
	if !strings.Contains(h, "Installed on the model server: `qwen3.5:9b`") {
		t.Errorf("model name hover = %q", h)
	}
}

// TestLogsGoToTheClientWithTheirLevel: a client that asks for it gets the
// server's log as window/logMessage, an info line as info (type 3), not
// as stderr that a client shows as errors.
func TestLogsGoToTheClientWithTheirLevel(t *testing.T) {
	s := newSession(t, func(c *lsptest.Config) { c.InitOptions["logToClient"] = true })
	s.Open(scope)
	raw := s.AwaitNotification("window/logMessage", "the context window line", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "context window")
	})
	var m struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Type != 3 || !strings.Contains(m.Message, "level=INFO") {
		t.Errorf("window/logMessage = %s", raw)
	}
}
