package llm

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Kind sorts model-call failures by what a person or the engine should do.
type Kind int

// Kinds of model-call failures.
const (
	// KindOther is a failure that fits no other kind.
	KindOther Kind = iota
	// KindModelMissing: the server does not have the model; pull it.
	KindModelMissing
	// KindBadRequest: the server refused the request; retrying will not help.
	KindBadRequest
	// KindUnavailable: unreachable, overloaded or timed out, after retries.
	KindUnavailable
	// KindStream: the server reported an error after the answer started.
	KindStream
	// KindPromptTooLong: the prompt cannot fit the model's window; refused before the call.
	KindPromptTooLong
	// KindTruncated: the server evaluated less of the prompt than was sent.
	KindTruncated
	// KindUnsupported: the backend cannot do what was asked (e.g. pull on an OpenAI-compatible server).
	KindUnsupported
	// KindRunnerStopped: the server's runner, the process that runs the
	// model, stopped under the call (it crashed or ran out of memory).
	KindRunnerStopped
)

var kindNames = map[Kind]string{
	KindOther:         "error",
	KindModelMissing:  "model missing",
	KindBadRequest:    "bad request",
	KindUnavailable:   "server unavailable",
	KindStream:        "error mid-stream",
	KindPromptTooLong: "prompt too long",
	KindTruncated:     "prompt truncated",
	KindUnsupported:   "unsupported",
	KindRunnerStopped: "runner stopped",
}

// String names the kind for messages.
func (k Kind) String() string { return kindNames[k] }

// Error is a sorted model-call failure. Msg says what went wrong and
// where; Hint, when set, tells the person what to do.
type Error struct {
	Kind  Kind
	Stage string
	Model string
	Msg   string
	Hint  string
	Err   error
	// Status is the HTTP status of the server's answer, 0 when none came.
	Status int
	// Attempts counts the tries made, retries included.
	Attempts int
	// Estimate, Window and Evaluated describe a prompt that did not fit
	// (KindPromptTooLong, KindTruncated): icm's count, the context window
	// asked for, and what the server said it evaluated (0 when unknown).
	Estimate  int
	Window    int
	Evaluated int
	// Installed lists the server's models and Suggestion the one a
	// missing model was probably meant to be (KindModelMissing; empty when
	// the server could not say or nothing is close).
	Installed  []string
	Suggestion string
	// Typo is set when Model is a misspelling of Suggestion (not another
	// size or tag of its family): pulling it is then no fix.
	Typo bool
	// Unreachable is set when no answer came because the server could not
	// be reached (refused, unknown host, no route), as opposed to a
	// server that answered badly or too slowly.
	Unreachable bool
	// URL is the server the failure came from ("" when not one server);
	// StartCommand starts such a server on this machine, when there is
	// one way ("ollama serve").
	URL          string
	StartCommand string
	// registry is set on a pull the model registry refused: the server
	// runs, but its registry has no such model, so pulling it again cannot
	// help and the hint (the library's address) is the one to show.
	registry bool
}

// Error says what went wrong, prefixed with the stage when there is one.
func (e *Error) Error() string {
	s := e.Msg
	if e.Stage != "" {
		s = fmt.Sprintf("stage %s: %s", e.Stage, s)
	}
	// "no model server at URL" and "the model server at URL stopped
	// answering" say it all; the dial error under them ("dial tcp ...:
	// connect: connection refused") is for Unwrap.
	if e.Err != nil && !(e.Unreachable && errors.Is(e.Err, syscall.ECONNREFUSED)) {
		s += ": " + e.Err.Error()
	}
	return s
}

// Fault describes the failure for a person: the kind, the hint and the
// fixes (start the server, pull the model) the adapters render.
func (e *Error) Fault() *fault.Error {
	msg := e.Error()
	var f *fault.Error
	switch {
	case errors.Is(e.Err, context.Canceled):
		f = fault.Cancelled(msg, e)
	case e.Kind == KindModelMissing && e.registry:
		f = (&fault.Error{Kind: fault.KindModelMissing, Msg: msg, Hint: e.Hint}).With(fault.Action{ID: fault.ChooseModel})
	case e.Kind == KindModelMissing && e.Typo:
		f = fault.ModelMistyped(msg, e.Model, e.Suggestion)
	case e.Kind == KindModelMissing:
		f = fault.ModelMissing(msg, e.Model, e.URL, e.Suggestion)
	case e.Kind == KindUnavailable && e.Unreachable:
		f = fault.ModelUnreachable(msg, e.URL, e.StartCommand)
	case e.Kind == KindPromptTooLong:
		f = fault.WindowExceeded(msg)
	case e.Kind == KindTruncated:
		f = fault.Truncated(msg)
	case e.Kind == KindRunnerStopped:
		f = fault.RunnerStopped(msg, e.Hint, "")
	default:
		f = fault.ModelFailed(msg, e.Hint)
	}
	if e.Hint != "" && (e.Kind == KindPromptTooLong || e.Kind == KindTruncated) {
		f.Hint = e.Hint // says which inputs and which window
	}
	f.Stage, f.Err = e.Stage, e
	return f
}

// Unwrap returns the underlying cause, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err, or KindOther when it is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindOther
}
