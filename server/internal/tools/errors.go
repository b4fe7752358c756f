package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
)

// FailureKind sorts what went wrong with a server.
type FailureKind string

// Failure kinds.
const (
	// FailTimeout: the call or start-up did not finish within its deadline.
	FailTimeout FailureKind = "timeout"
	// FailExited: the stdio server process ended.
	FailExited FailureKind = "exited"
	// FailStart: the server could not be started or initialized.
	FailStart FailureKind = "start"
	// FailTransport: the connection broke or the server answered nonsense.
	FailTransport FailureKind = "transport"
)

// ServerError is a failure of the server rather than of the tool: the call
// has no answer. Its message names the server and quotes its last stderr
// lines, and is fit to show both to a person and to the model.
type ServerError struct {
	Server string
	// Tool is the server's name for the tool ("" during start-up).
	Tool string
	Kind FailureKind
	// Status is how the process ended ("exit status 3"), for FailExited.
	Status string
	// Timeout is the deadline that passed, for FailTimeout.
	Timeout time.Duration
	// Stderr holds the server's last stderr lines, if any.
	Stderr string
	Err    error
}

func (e *ServerError) Error() string {
	var b strings.Builder
	during := "during start-up"
	if e.Tool != "" {
		during = "during " + e.Tool
	}
	switch e.Kind {
	case FailTimeout:
		if e.Tool != "" {
			fmt.Fprintf(&b, "MCP server %q did not answer %s within %s; the call was cancelled (if the tool is just slow, raise [workflow] tool_timeout in config.toml)", e.Server, e.Tool, e.Timeout)
		} else {
			fmt.Fprintf(&b, "MCP server %q did not finish starting within %s", e.Server, e.Timeout)
		}
	case FailExited:
		fmt.Fprintf(&b, "MCP server %q exited %s (%s); it stays down for the rest of the stage", e.Server, during, e.Status)
	case FailStart:
		fmt.Fprintf(&b, "MCP server %q failed to start: %v", e.Server, e.Err)
	default:
		fmt.Fprintf(&b, "MCP server %q failed %s: %v", e.Server, during, e.Err)
	}
	if e.Stderr != "" {
		b.WriteString("\nlast stderr lines:\n")
		b.WriteString(e.Stderr)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ServerError) Unwrap() error { return e.Err }

// Fault is a tool server that failed; a cancelled call stays cancelled.
func (e *ServerError) Fault() *fault.Error {
	if errors.Is(e.Err, context.Canceled) {
		return fault.Cancelled(e.Error(), nil)
	}
	return fault.ToolFailed(e.Error(), "", nil)
}
