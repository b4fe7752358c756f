package mcpgate

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// idWindow is how much of an over-size request is looked at for its id:
// clients write the id before the parameters that make a request large.
const idWindow = 64 << 10

// invalidRequest is JSON-RPC's code for a request the server will not
// take as sent.
const invalidRequest = -32600

// TooLarge is the JSON-RPC error answering a request over max bytes,
// whose first bytes are head: to the request's id when head shows it
// (null otherwise, as JSON-RPC answers a request it could not read).
func TooLarge(head []byte, max int) []byte {
	frame := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Limit int `json:"limit"`
			} `json:"data"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: requestID(head)}
	frame.Error.Code = invalidRequest
	frame.Error.Message = fmt.Sprintf("the request is over %d bytes, the most this server reads in one request, so it was not read: hand in fewer or smaller files at a time", max)
	frame.Error.Data.Limit = max
	data, _ := json.Marshal(frame) // nothing in it can fail to encode
	return data
}

// requestID is the top-level "id" of the JSON-RPC request head begins,
// when head holds all of it and it is a string or a number; null
// otherwise.
func requestID(head []byte) json.RawMessage {
	null := json.RawMessage("null")
	if len(head) > idWindow {
		head = head[:idWindow]
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return null
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return null
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return null // cut off before the id
		}
		if key != "id" {
			continue
		}
		if c := value[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
			return value
		}
		return null
	}
	return null
}
