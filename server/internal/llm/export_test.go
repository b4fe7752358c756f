package llm

import (
	"context"
	"net/http"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// The options only tests set: the HTTP client (to count requests), the
// stream limits, the retry clock and jitter, the estimator and the pool's
// cooldowns. icm itself sets none of them.

// WithHTTPClient sets the HTTP client. Its Timeout should be zero: the
// client applies its own first-byte, idle and call limits.
func WithHTTPClient(hc *http.Client) Option { return func(o *settings) { o.hc = hc } }

// WithStreamTimeouts sets the wait for the first chunk of an answer
// (model load and prompt evaluation included) and the longest silence
// between chunks. Zero keeps a default.
func WithStreamTimeouts(firstByte, idle time.Duration) Option {
	return func(o *settings) {
		if firstByte > 0 {
			o.firstByte = firstByte
		}
		if idle > 0 {
			o.idle = idle
		}
	}
}

// WithStreamDeadline bounds one attempt at an answer from the request to
// its last byte, even while data keeps coming (DefaultStreamDeadline when
// zero or not given).
func WithStreamDeadline(d time.Duration) Option {
	return func(o *settings) {
		if d > 0 {
			o.streamTotal = d
		}
	}
}

// WithBackoff sets the first retry delay and the cap on later ones.
func WithBackoff(base, max time.Duration) Option {
	return func(o *settings) {
		if base > 0 {
			o.baseDelay = base
		}
		if max > 0 {
			o.maxDelay = max
		}
	}
}

// WithSleep replaces the wait between retries (tests pass a fake that
// advances a fake clock). It must return ctx.Err() when ctx ends first.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(o *settings) { o.sleep = sleep }
}

// WithJitter replaces the random part of retry delays: given d it returns
// a duration in [0, d).
func WithJitter(jitter func(time.Duration) time.Duration) Option {
	return func(o *settings) { o.jitter = jitter }
}

// WithClock replaces time.Now for retry-budget accounting.
func WithClock(now func() time.Time) Option { return func(o *settings) { o.now = now } }

// WithEstimator forces one token estimator for every model instead of
// choosing by the family /api/show reports.
func WithEstimator(e tokens.Estimator) Option { return func(o *settings) { o.estimator = e } }

// WithLowCountRatio sets the share of the estimate under which a
// prompt_eval_count counts as a cut prompt; 0 turns that check off (for
// servers that report only the tokens evaluated beyond a cached prefix).
func WithLowCountRatio(r float64) Option { return func(o *settings) { o.lowCountRatio = r } }

// WithCooldown sets how long a failed server is left out (first, and at most).
func WithCooldown(first, most time.Duration) PoolOption {
	return func(p *Pool) {
		if first > 0 {
			p.cooldown = first
		}
		if most > 0 {
			p.maxCool = most
		}
	}
}

// WithPoolBudget bounds how long one call may keep trying servers,
// waiting out cooldowns included (DefaultRetryBudget by default).
func WithPoolBudget(d time.Duration) PoolOption { return func(p *Pool) { p.budget = d } }

// WithPoolClock replaces time.Now for cooldowns.
func WithPoolClock(now func() time.Time) PoolOption { return func(p *Pool) { p.now = now } }

// testPermit lets a test's client contact the test's own servers and
// ask them for pulls.
var testPermit = act.PermitFunc(func(act.Action) error { return nil })
