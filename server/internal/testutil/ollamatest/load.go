package ollamatest

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errMaxQueue is Ollama's text for a call refused because too many wait.
const errMaxQueue = "server busy, please try again.  maximum pending requests exceeded"

// errBusy refuses a call when Config.MaxQueue calls already wait for a slot.
var errBusy = errors.New(errMaxQueue)

// acquire takes a slot for a chat call, waiting while all are busy, and
// returns the function that gives it back. The slot channel is what limits
// concurrency; the counters beside it are only kept for Stats.
func (e *Engine) acquire(ctx context.Context) (release func(), err error) {
	waited := false
	if e.slots != nil {
		select {
		case e.slots <- struct{}{}:
		default:
			if err := e.waitForSlot(ctx); err != nil {
				return nil, err
			}
			waited = true
		}
	}
	e.mu.Lock()
	if waited {
		e.waiting--
	}
	e.active++
	e.peakActive = max(e.peakActive, e.active)
	e.peakInFlight = max(e.peakInFlight, e.active+e.waiting)
	e.notifyLocked()
	e.mu.Unlock()

	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			e.active--
			e.notifyLocked()
			e.mu.Unlock()
			if e.slots != nil {
				<-e.slots
			}
		})
	}, nil
}

// waitForSlot queues a call until a slot frees. On success the call still
// counts as waiting; acquire moves it to active under the same lock, so
// Stats never shows it in neither.
func (e *Engine) waitForSlot(ctx context.Context) error {
	e.mu.Lock()
	if e.cfg.MaxQueue > 0 && e.waiting >= e.cfg.MaxQueue {
		e.mu.Unlock()
		return errBusy
	}
	e.waiting++
	e.peakInFlight = max(e.peakInFlight, e.active+e.waiting)
	e.notifyLocked()
	e.mu.Unlock()

	select {
	case e.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		e.mu.Lock()
		e.waiting--
		e.notifyLocked()
		e.mu.Unlock()
		return ctx.Err()
	}
}

// pause waits d, or less when ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
