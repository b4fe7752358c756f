package canned_test

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/demo/canned"
)

// TestScriptErrorsSayWhere: a script icm cannot use is refused with the
// place of the fault, a misspelt condition included (it would otherwise
// hold for every call).
func TestScriptErrorsSayWhere(t *testing.T) {
	const model = `"models": [{"name": "m", "context_length": 8192}]`
	tests := []struct{ name, text, want string }{
		{"misspelt condition", "{" + model + ",\n \"rules\": [{\"when\": {\"user_contain\": \"x\"}, \"reply\": [{}]}]}", `invalid script: json: unknown field "user_contain"`},
		{"syntax", "{\n  oops\n}", "s.json:2:3: invalid script: invalid character 'o'"},
		{"wrong type", `{"slots": "four"}`, "s.json:1:17: invalid script"},
		{"two objects", "{" + model + "} {}", "invalid script: text after the script object"},
		{"bad latency", `{"latency": "soon"}`, `bad duration "soon"`},
		{"no model", `{"rules": []}`, "s.json: invalid script: it names no model"},
		{"no window", `{"models": [{"name": "m"}]}`, "models[0] needs a name and a positive context_length"},
		{"no reply", "{" + model + `, "rules": [{"when": {}}]}`, "rules[0] has no reply"},
		{"nameless call", "{" + model + `, "default": {"tool_calls": [{"arguments": {}}]}}`, "default: tool_calls[0] has no name"},
	}
	for _, tt := range tests {
		_, err := canned.ParseScript("s.json", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestPieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello big world", []string{"Hello", " big", " world"}},
		{"  lead and trail  ", []string{"  lead", " and", " trail", "  "}},
		{"a\n\nb", []string{"a", "\n\nb"}},
		{"héllo wörld", []string{"héllo", " wörld"}},
	}
	for _, tt := range tests {
		got := canned.Pieces(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("Pieces(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("Pieces(%q) lose text", tt.in)
		}
	}
}
