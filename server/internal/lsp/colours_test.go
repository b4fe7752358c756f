package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
)

// colouredPieces asks for a document's semantic tokens and reads them
// back as "text:type" pairs, the columns taken as UTF-16 units.
func colouredPieces(t *testing.T, s *session, file string, text string) []string {
	t.Helper()
	var res struct {
		Data []int `json:"data"`
	}
	if err := s.TextDocumentCall("textDocument/semanticTokens/full", file, nil, &res); err != nil {
		t.Fatal(err)
	}
	var legend struct {
		Capabilities struct {
			SemanticTokensProvider struct {
				Legend struct {
					TokenTypes []string `json:"tokenTypes"`
				} `json:"legend"`
				Full bool `json:"full"`
			} `json:"semanticTokensProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(s.InitializeResult(), &legend); err != nil {
		t.Fatal(err)
	}
	types := legend.Capabilities.SemanticTokensProvider.Legend.TokenTypes
	if !legend.Capabilities.SemanticTokensProvider.Full || len(types) == 0 {
		t.Fatalf("no semantic tokens offered: %+v", legend)
	}
	lines := strings.Split(text, "\n")
	if len(res.Data)%5 != 0 {
		t.Fatalf("data of %d numbers", len(res.Data))
	}
	var out []string
	line, col := 0, 0
	for i := 0; i < len(res.Data); i += 5 {
		if res.Data[i] > 0 {
			line, col = line+res.Data[i], 0
		}
		col += res.Data[i+1]
		units := utf16.Encode([]rune(lines[line]))
		if col+res.Data[i+2] > len(units) || res.Data[i+3] >= len(types) {
			t.Fatalf("token %v is outside line %d %q", res.Data[i:i+5], line, lines[line])
		}
		piece := string(utf16.Decode(units[col : col+res.Data[i+2]]))
		out = append(out, piece+":"+types[res.Data[i+3]])
	}
	return out
}

// TestConfigColours: config.toml's colours are the server's semantic
// tokens (config.Highlight): tables, keys, strings, numbers, booleans,
// operators and comments, columns in UTF-16 units; a contract gets none
// (Markdown is the editor's). Before, the server offered no semantic
// tokens and config.toml was one colour.
func TestConfigColours(t *testing.T) {
	s := newSession(t)
	const cfg = "config.toml"
	s.Open(cfg)
	s.AwaitDiagnostics(cfg, "analysed", lsptest.None)
	s.Edit(cfg, `name = "qwen3.5:9b"`, `name = "qwen3.5:9b" # é😀 a note`)
	text := s.Text(cfg)
	got := colouredPieces(t, s, cfg, text)
	all := "," + strings.Join(got, ",") + ","
	for _, want := range []string{"model:namespace", "workflow:namespace", "name:property", "=:operator", `"qwen3.5:9b":string`,
		"# é😀 a note:comment", "0.1:number", "false:keyword", "gate:property", `"explicit":string`, "24:number"} {
		if !strings.Contains(all, ","+want+",") {
			t.Errorf("no %s among %s", want, all)
		}
	}
	if !strings.HasPrefix(got[0], "# ") || !strings.HasSuffix(got[0], ":comment") {
		t.Errorf("the file's first comment is %q", got[0])
	}
	s.Open(scope)
	if pieces := colouredPieces(t, s, scope, s.Text(scope)); len(pieces) != 0 {
		t.Errorf("a contract got colours: %v", pieces)
	}
}
