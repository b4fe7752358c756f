package cli

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// The first signal cancels at once; the exit follows after the grace, or
// at once at a second signal, with 128 plus the signal's number.
func TestOnSignal(t *testing.T) {
	for _, twice := range []bool{false, true} {
		sigs := make(chan os.Signal, 2)
		cancelled := make(chan struct{})
		exited := make(chan int, 1)
		grace := time.Hour
		if !twice {
			grace = 10 * time.Millisecond
		}
		go OnSignal(sigs, func(error) { close(cancelled) }, grace, func(code int) { exited <- code }, io.Discard)
		sigs <- syscall.SIGTERM
		<-cancelled
		if twice {
			sigs <- syscall.SIGINT
		}
		select {
		case code := <-exited:
			if code != 128+15 {
				t.Errorf("exit code %d, want 143", code)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no exit (second signal %v)", twice)
		}
	}
}
