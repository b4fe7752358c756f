package llm

import (
	"context"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
)

// retrier runs the attempts of one call: exponential backoff with jitter
// (delay base×2^n capped, the upper half randomised, so clients that
// failed together do not return together), Retry-After honoured, no new
// attempt once the budget since the first attempt or the attempt count
// is spent, or when the caller's deadline would pass during the wait.
type retrier struct {
	o        *conn
	start    time.Time
	attempts int
	onceUsed bool
	// probed is set once a closed connection was tried again at once.
	probed bool
}

func (o *conn) newRetrier() *retrier { return &retrier{o: o, start: o.now()} }

// run calls attempt until it succeeds or its failure is final; it returns
// the last failure (nil on success).
func (r *retrier) run(ctx context.Context, attempt func() *failure) *failure {
	for {
		r.attempts++
		f := attempt()
		if f == nil || !r.again(ctx, f) {
			return f
		}
	}
}

// elapsed is the time since the first attempt.
func (r *retrier) elapsed() time.Duration { return r.o.now().Sub(r.start) }

// again decides whether f is worth another attempt and waits before it.
// When it gives up for lack of budget it says so in f.
func (r *retrier) again(ctx context.Context, f *failure) bool {
	switch f.retry {
	case retryNever:
		return false
	case retryOnce:
		if r.onceUsed {
			return false
		}
		r.onceUsed = true
	}
	if r.attempts >= r.o.maxAttempts {
		return false
	}
	if f.closed && !r.probed {
		// At once: whether the server is still there is the question.
		r.probed = true
		return ctx.Err() == nil
	}
	delay := r.delay(r.attempts)
	if f.retryAfter > delay {
		delay = f.retryAfter
	}
	if r.elapsed()+delay > r.o.retryBudget {
		if f.retryAfter > 0 {
			f.msg += fmt.Sprintf(" (it asked to retry after %s, beyond the retry budget of %s)", human.Duration(f.retryAfter), human.Duration(r.o.retryBudget))
		}
		return false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
		return false
	}
	if err := r.o.sleep(ctx, delay); err != nil {
		return false
	}
	return true
}

// delay is the wait before attempt n+1 (n attempts made so far).
func (r *retrier) delay(n int) time.Duration {
	d := r.o.baseDelay
	for i := 1; i < n && d < r.o.maxDelay; i++ {
		d *= 2
	}
	if d > r.o.maxDelay {
		d = r.o.maxDelay
	}
	half := d / 2
	return half + r.o.jitter(d-half)
}
