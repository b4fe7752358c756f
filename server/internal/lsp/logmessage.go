package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync/atomic"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// logSink is where the server's log lines go: stderr, or, once a client
// asks for it in initializationOptions ({"logToClient": true}), the
// client's log as window/logMessage with the line's level, so an info line
// is shown as info (a client that shows stderr shows every line of it as an
// error).
type logSink struct {
	stderr io.Writer
	// notify is set once the client asked for window/logMessage.
	notify atomic.Pointer[func(method string, params any) error]
}

var levelOf = regexp.MustCompile(`\blevel=(\w+)`)

// Write takes one log record (slog's text handler writes each whole).
func (l *logSink) Write(p []byte) (int, error) {
	send := l.notify.Load()
	if send == nil {
		return l.stderr.Write(p)
	}
	line := string(bytes.TrimRight(p, "\n"))
	t := protocol.MessageTypeLog
	if m := levelOf.FindStringSubmatch(line); m != nil {
		switch strings.ToUpper(m[1]) {
		case "ERROR":
			t = protocol.MessageTypeError
		case "WARN":
			t = protocol.MessageTypeWarning
		case "INFO":
			t = protocol.MessageTypeInfo
		}
	}
	if err := (*send)("window/logMessage", protocol.LogMessageParams{Type: t, Message: line}); err != nil {
		return l.stderr.Write(p) // the connection is gone: keep the line
	}
	return len(p), nil
}

// logToClient reads initializationOptions' logToClient.
func logToClient(opts any) bool {
	raw, err := json.Marshal(opts)
	if err != nil {
		return false
	}
	var o struct {
		LogToClient bool `json:"logToClient"`
	}
	return json.Unmarshal(raw, &o) == nil && o.LogToClient
}
