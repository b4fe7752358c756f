package lsp

import (
	"encoding/json"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

func diag(msg string) []protocol.Diagnostic {
	return []protocol.Diagnostic{{Message: msg}}
}

func TestPublisher(t *testing.T) {
	v := int32(3)
	type step struct {
		owner string
		files map[string]fileDiagnostics
		want  []string // "uri:count" of what goes out, in order of URIs sent
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"sends, then only changes", []step{
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("x")}}, []string{"a:1"}},
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("x")}}, nil},
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("y")}}, []string{"a:1"}},
		}},
		{"a fixed file is cleared with an empty list", []step{
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("x")}}, []string{"a:1"}},
			{"w", map[string]fileDiagnostics{"a": {URI: "a"}}, []string{"a:0"}},
		}},
		{"a file left out of a later batch is cleared", []step{
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("x")}}, []string{"a:1"}},
			{"w", map[string]fileDiagnostics{}, []string{"a:0"}},
		}},
		{"a clean closed file is not announced; a clean open one is", []step{
			{"w", map[string]fileDiagnostics{"a": {URI: "a"}}, nil},
			{"w", map[string]fileDiagnostics{"a": {URI: "a", Version: &v}}, []string{"a:0"}},
		}},
		{"owners do not clear each other's files", []step{
			{"w1", map[string]fileDiagnostics{"a": {URI: "a", Diagnostics: diag("x")}}, []string{"a:1"}},
			{"w2", map[string]fileDiagnostics{"b": {URI: "b", Diagnostics: diag("y")}}, []string{"b:1"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent []string
			p := newPublisher(func(method string, params any) error {
				if method != "textDocument/publishDiagnostics" {
					t.Errorf("method %s", method)
				}
				pd := params.(protocol.PublishDiagnosticsParams)
				raw, _ := json.Marshal(pd)
				var back struct {
					Diagnostics []any `json:"diagnostics"`
				}
				if err := json.Unmarshal(raw, &back); err != nil || back.Diagnostics == nil {
					t.Errorf("diagnostics must be a list, never null: %s", raw)
				}
				sent = append(sent, pd.URI+":"+string(rune('0'+len(pd.Diagnostics))))
				return nil
			})
			for i, st := range tt.steps {
				sent = nil
				p.send(batch{owner: st.owner, files: st.files})
				if len(sent) != len(st.want) {
					t.Fatalf("step %d sent %v, want %v", i+1, sent, st.want)
				}
				for j := range sent {
					if sent[j] != st.want[j] {
						t.Errorf("step %d sent %v, want %v", i+1, sent, st.want)
					}
				}
			}
		})
	}
}
