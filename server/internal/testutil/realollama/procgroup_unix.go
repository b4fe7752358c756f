//go:build unix

package realollama

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// signalGroup sends sig to every process of the group; a group that is
// already gone is not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("unable to signal process group %d: %w", pgid, err)
	}
	return nil
}

// groupGoneWithin bounds how long waitGroupGone waits for the kernel to
// finish killing a group after SIGKILL.
const groupGoneWithin = 5 * time.Second

// waitGroupGone waits until no live process is in the group. Orphaned
// members are reaped by init, not by us, so nothing signals their end:
// this looks again every few milliseconds, within groupGoneWithin.
func waitGroupGone(ctx context.Context, pgid int) error {
	deadline := time.NewTimer(groupGoneWithin)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		left, err := GroupMembers(pgid)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return fmt.Errorf("processes %v of the Ollama server's group %d are still alive after SIGKILL", left, pgid)
		case <-ctx.Done():
			return fmt.Errorf("processes %v of the Ollama server's group %d may still be alive: %w", left, pgid, ctx.Err())
		}
	}
}
