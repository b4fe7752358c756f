// Package fault is the one error type that crosses from icm's core to its
// adapters. A fault says what went wrong (Msg), what kind of problem it
// is (Kind), where (Stage, File, Line), what a person can do about it
// (Hint, in plain words for any audience) and which concrete actions
// would fix it (Actions). The CLI renders the actions as commands and
// flags, the language server as JSON-RPC error data, the editor as
// buttons; none of them reads the message to decide anything.
//
// Core packages return a *Error, or a type of their own that implements
// Faulter (llm.Error, workflow.EditedError, state.LockedError): every
// error knows its kind where it is made. From turns any error into a
// *Error for rendering; it never guesses one: an error of no kind is a
// bug in icm (KindInternal).
//
// To add a kind: a constant in kind.go with its entry in the kinds table;
// to add an action: a constant in action.go with its entry in the actions
// table, then a case of it in package faulttest. Every renderer has a table
// test over faulttest's cases, and fault's own tests hold faulttest to the
// tables, so a new entry that one of them cannot render fails a test.
package fault

import (
	"errors"
	"fmt"
)

// Error is a problem described for a person and for a program.
type Error struct {
	// Kind sorts the problem by what can be done about it.
	Kind Kind
	// Msg says what went wrong and where, in one line; it is the whole of
	// Error(). It gives no advice: that is Hint's and Actions' job.
	Msg string
	// Stage is the stage the problem is about, "" when none.
	Stage string
	// File is the absolute path of the file the problem is in, "" when
	// none; Line is its 1-based line, 0 when unknown.
	File string
	Line int
	// Hint says what to do, for a person, without naming a command-line
	// flag or an editor control (the actions carry those).
	Hint string
	// Detail is more for a person to read under the message, on lines of
	// its own (a diff); "" when there is none.
	Detail string
	// Actions are the fixes a person may pick, most likely first.
	Actions []Action
	// Err is the cause, for errors.Is and errors.As; it is not printed.
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Faulter is an error type of a core package that knows its fault.
type Faulter interface {
	Fault() *Error
}

// In sets the stage and returns e.
func (e *Error) In(stage string) *Error {
	e.Stage = stage
	return e
}

// At sets the file and line and returns e.
func (e *Error) At(file string, line int) *Error {
	e.File, e.Line = file, line
	return e
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// With adds actions and returns e.
func (e *Error) With(actions ...Action) *Error {
	e.Actions = append(e.Actions, actions...)
	return e
}

// Because sets the cause and returns e.
func (e *Error) Because(err error) *Error {
	e.Err = err
	return e
}

// From returns err as a fault: err itself when it is one; the fault of
// the first Faulter in its chain, with err's fuller message; the fault of
// what the system or the context says it is (a cancelled context, a
// deadline, a file the system refused: see ofSystem). Any other error is
// one nobody gave a kind where it was made, which is a bug in icm: its
// fault is KindInternal, and Unclassified counts it. From(nil) is nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	if f := classify(err); f != nil {
		return f
	}
	noteUnclassified(err)
	return Internal(err.Error(), err)
}

// classify is From without the fallback: nil for an error of no kind.
func classify(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		if error(fe) == err {
			return fe
		}
		c := *fe
		c.Msg, c.Err = err.Error(), err
		return &c
	}
	var f Faulter
	if errors.As(err, &f) {
		if fe := f.Fault(); fe != nil {
			c := *fe
			c.Msg, c.Err = err.Error(), err
			return &c
		}
	}
	return ofSystem(err)
}

// Classified reports whether err has a kind: a *Error or a Faulter in its
// chain, or an error of the system's that says what it is. From calls
// anything else KindInternal.
func Classified(err error) bool {
	return err != nil && classify(err) != nil
}

// KindOf returns the kind of err's fault; "" for nil. It reads the kind
// without rendering the error, so an error of no kind reads as
// KindInternal without being counted (From counts it where it is shown).
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	if f := classify(err); f != nil {
		return f.Kind
	}
	return KindInternal
}
