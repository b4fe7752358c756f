package fetch

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
)

// Causes of a cancelled fetch context.
var (
	errIdle  = errors.New("idle timeout")
	errTotal = errors.New("total timeout")
)

// capReader fails with err once more than left bytes have been read.
type capReader struct {
	r      io.Reader
	left   int64
	onRead func()
	err    error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err
	}
	// Ask for one byte more than allowed so an exact fit is not an error.
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if n > 0 && c.onRead != nil {
		c.onRead()
	}
	if c.left < 0 {
		return n, c.err
	}
	return n, err
}

// watchdog calls fire when kick has not been called for d.
type watchdog struct {
	mu    sync.Mutex
	d     time.Duration
	timer *time.Timer
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	return &watchdog{d: d, timer: time.AfterFunc(d, fire)}
}

func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Reset(w.d)
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Stop()
}

// URLError is a URL the reader will not try.
type URLError struct {
	URL string
	Msg string
}

func (e *URLError) Error() string { return fmt.Sprintf("cannot read %q: %s", e.URL, e.Msg) }

// Fault is an address the request should not have named.
func (e *URLError) Fault() *fault.Error {
	return fault.InvalidRequest(e.Error(), "name the full address of a web page, starting with https://")
}

// RedirectError is a fetch that redirected more than allowed.
type RedirectError struct {
	URL string
	Max int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirected more than %d times; stopped", e.URL, e.Max)
}

// Fault is a page that could not be read, and what to try.
func (e *RedirectError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "read the address it ends at, or another page", nil)
}

// TooLargeError is a body over a byte cap.
type TooLargeError struct {
	URL   string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the %d-byte limit; stopped reading", e.URL, e.Limit)
}

// Fault is a page that could not be read, and what to try.
func (e *TooLargeError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "read a smaller page, or one that holds the part needed", nil)
}

// TimeoutError is a fetch stopped by the total or the idle limit.
type TimeoutError struct {
	// Phase is "total" or "idle".
	Phase string
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	if e.Phase == "idle" {
		return fmt.Sprintf("the server sent nothing for %s; stopped", human.Duration(e.Limit))
	}
	return fmt.Sprintf("the page took longer than %s to read; stopped", human.Duration(e.Limit))
}

// Timeout reports true, so callers testing net.Error-style see a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Fault is a page that could not be read, and what to try.
func (e *TimeoutError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "try again later, or read another page", nil)
}

// StatusError is a non-2xx answer.
type StatusError struct {
	URL  string
	Code int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d", e.URL, e.Code)
}

// Fault is a page the server would not give, and what to try.
func (e *StatusError) Fault() *fault.Error {
	return fault.Failed(e.Error(), "check the address, or read another page", nil)
}
