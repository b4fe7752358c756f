package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
)

// ShutdownGrace is how long icm has, after SIGTERM or Ctrl-C, to stop
// cleanly (cancel its work, stop its tool servers) before it exits anyway.
const ShutdownGrace = 800 * time.Millisecond

// OnSignal is how icm ends when asked to: the first signal on sigs cancels
// the context, so everything that waits stops; if the program is still
// running grace later, or at a second signal, exit is called with 128 plus
// the signal's number. So SIGTERM ends icm within a second whatever it is
// blocked on. Exiting early loses nothing: outputs and records are written
// atomically, the run lock frees itself when the process ends, and the
// tool servers' reapers end their servers when icm goes.
func OnSignal(sigs <-chan os.Signal, cancel context.CancelCauseFunc, grace time.Duration, exit func(int), stderr io.Writer) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	cancel(Interrupted(sig))
	code := signalCode(sig)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
		fmt.Fprintf(stderr, "icm: stopped (%v)\n", sig)
	case <-sigs:
	}
	exit(code)
}

// Interrupted is the cause a context is cancelled with when icm is sent
// sig: MainWith reads it to end with 128 plus the signal's number, as a
// shell reports a program the signal ended (130 for Ctrl-C, 143 for
// SIGTERM). It is a context.Canceled to errors.Is, so everything that
// tells a cancel from a failure still does.
func Interrupted(sig os.Signal) error { return &signalled{sig} }

// signalled is the cause of a cancellation by a signal.
type signalled struct{ sig os.Signal }

func (s *signalled) Error() string { return "cancelled" }

// Fault is the cancel a signal asked for.
func (s *signalled) Fault() *fault.Error { return fault.Cancelled("cancelled", context.Canceled) }
func (s *signalled) Unwrap() error       { return context.Canceled }

// signalCode is the exit code of a program ended by sig: 128 plus its
// number, 1 for a signal without one.
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// interruptedCode is the exit code of a command whose context a signal
// cancelled, and whether one did.
func interruptedCode(ctx context.Context) (int, bool) {
	var s *signalled
	if errors.As(context.Cause(ctx), &s) {
		return signalCode(s.sig), true
	}
	return 0, false
}
