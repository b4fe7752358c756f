package lsp

import (
	"encoding/json"

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
