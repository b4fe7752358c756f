package lsp

import (
	"encoding/json"
	"reflect"

	"github.com/icm-tool/icm/server/internal/fault"
)

// ErrorData returns the data of the error reply the server sends for
// err, as JSON: what docs/lsp-protocol.md describes.
func ErrorData(err error) json.RawMessage {
	b, _ := json.Marshal(dataOf(fault.From(err)))
	return b
}

// ErrorCode returns the JSON-RPC error code the server answers err with.
func ErrorCode(err error) int64 { return codeOf(fault.From(err).Kind) }

// Methods lists every method the server answers, for tests that must
// classify each one: the fields of glsp's handler table it sets (by field
// name, "TextDocumentHover"), and the methods it handles before that
// table ("$/cancelRequest", "exit", "icm/didChangeWorkspaceTrust").
func Methods() []string {
	var out []string
	h := reflect.ValueOf((&Server{}).protocolHandler())
	for i := 0; i < h.NumField(); i++ {
		if f := h.Field(i); f.Kind() == reflect.Func && !f.IsNil() {
			out = append(out, h.Type().Field(i).Name)
		}
	}
	return append(out, "$/cancelRequest", "exit", notifyDidChangeTrust)
}

// Commands lists every workspace/executeCommand command the server runs.
func Commands() []string { return allCommands() }
