package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
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
func OnSignal(sigs <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, exit func(int), stderr io.Writer) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	cancel()
	code := 1
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
		fmt.Fprintf(stderr, "icm: stopped (%v)\n", sig)
	case <-sigs:
	}
	exit(code)
}
