//go:build unix

package devcache

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive flock on path (made if missing), waiting until
// it is free or ctx ends; unlock releases it. The lock is the kernel's, so it frees itself if the holder
// dies. A wait that ctx abandons still ends cleanly: the lock, if it comes
// later, is released at once.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("unable to open lock file %s: %w", path, err)
	}
	got := make(chan error, 1)
	go func() { got <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	release := func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("unable to lock %s: %w", path, err)
		}
		return release, nil
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				release()
				return
			}
			f.Close()
		}()
		return nil, fmt.Errorf("unable to lock %s: gave up waiting: %w", path, ctx.Err())
	}
}
