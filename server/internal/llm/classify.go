package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/human"
)

// retryClass says whether a failed attempt may be tried again.
type retryClass int

const (
	// retryNever: trying again cannot help (bad request, missing model).
	retryNever retryClass = iota
	// retryTransient: unreachable, overloaded, timed out; retry with
	// backoff while the budget lasts.
	retryTransient
	// retryOnce: a server-side failure that is sometimes transient (a
	// generic 500, an error object before any answer was passed on);
	// one more attempt, no more.
	retryOnce
)

// failure is one failed attempt, sorted.
type failure struct {
	kind       Kind
	retry      retryClass
	status     int
	msg        string
	hint       string
	err        error
	retryAfter time.Duration
	// tooLong: the server refused the prompt as longer than the window.
	tooLong bool
	// unreachable: no answer came because the server could not be reached.
	unreachable bool
	// capped: the answer went past its cap (see answerCap); the caller
	// returns what came as an incomplete answer.
	capped bool
	// closed: the connection closed under the call. The first retry of
	// one goes at once: a server that restarted answers it, and one that
	// stopped refuses it, which ends the call without a wait.
	closed bool
	// url and startCommand say which server failed and how to start one
	// (set by conn.place).
	url, startCommand string
}

// statusFailure sorts an HTTP error answer.
//
// Decisions, per status:
//   - 404: the model is missing when the answer is Ollama's JSON; a plain
//     "404 page not found" means the base URL is not an Ollama server.
//   - 400 and other 4xx: the request is wrong, never retried; a 400 that
//     says the input exceeds the context length is a cut prompt (the
//     caller may retry once with a larger window).
//   - 408, 429, 502, 503, 504: transient, retried with backoff, honouring
//     Retry-After.
//   - 500: Ollama's catch-all. It mixes transient causes (the runner timed
//     out loading, crashed, or a sampled tool call failed to parse) with
//     permanent ones (template errors, not enough memory), so it gets one
//     more attempt and no more.
//   - other 5xx (501, 505, ...): not something a retry fixes; no retry.
func statusFailure(resp *http.Response, data []byte, now time.Time, d dialect) *failure {
	code := resp.StatusCode
	answer, isJSON := serverAnswer(data)
	f := &failure{status: code, msg: fmt.Sprintf("the server answered %s", resp.Status)}
	if answer != "" {
		f.msg += ": " + answer
	}
	lower := strings.ToLower(answer)
	switch {
	case code == http.StatusNotFound && (isJSON || strings.Contains(lower, "model")):
		f.kind = KindModelMissing
	case code == http.StatusNotFound:
		f.kind = KindBadRequest
		f.hint = d.notServerHint
	case code == http.StatusTooManyRequests || code == http.StatusRequestTimeout ||
		code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		f.kind = KindUnavailable
		f.retry = retryTransient
		f.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
		f.hint = "the server is busy or restarting; try again later, or lower [workflow] parallel"
	case code == http.StatusInternalServerError && isRunnerStopped(lower):
		f.kind = KindRunnerStopped
		f.retry = retryOnce
		f.hint = runnerStoppedHint(lower)
	case code == http.StatusInternalServerError:
		f.kind = KindOther
		f.retry = retryOnce
		f.hint = d.logHint
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		f.kind = KindBadRequest
		f.hint = "the server (or a proxy in front of it) refused access: check the address and any API key settings"
	case code >= 500:
		f.kind = KindOther
		f.hint = d.logHint
	default:
		f.kind = KindBadRequest
		switch {
		case isContextOverflow(lower):
			f.tooLong = true
		case strings.Contains(lower, "does not support tools"):
			f.hint = "this model cannot call tools: use one whose `ollama show` lists the tools capability, or remove the stage's tools"
		case strings.Contains(lower, "does not support thinking"):
			f.hint = "this model cannot think: set [model] think = false or use a thinking model"
		default:
			f.hint = "the server refused the request; retrying will not help"
		}
	}
	return f
}

// isRunnerStopped recognises Ollama saying its runner stopped under a
// call, in the words v0.17 uses: the 500 of a call the runner was
// starting ("model runner has unexpectedly stopped, this may be due to
// resource limitations ..."), and the error in the stream of a call that
// was answering when an assertion aborted the runner ("an error was
// encountered while running the model: GGML_ASSERT(...) failed"). Other
// errors in the stream ("an error was encountered while running the
// model: ...") and a runner that would not start ("llama runner process
// has terminated") are not this.
func isRunnerStopped(lower string) bool {
	return strings.Contains(lower, "model runner has unexpectedly stopped") || strings.Contains(lower, "ggml_assert")
}

// runnerStoppedHint names the likely cause of a stopped runner and the
// fix. A runner that stops as a second call starts while another runs is
// most often the multi-user cache (OLLAMA_MULTIUSER_CACHE=1) on
// llama.cpp's runner, which stops at the first copy of a slot's computed
// prompt into another; the assertion in the answer says so for certain.
func runnerStoppedHint(lower string) string {
	const fix = "restart Ollama without OLLAMA_MULTIUSER_CACHE (the multi-user cache is safe only where the model runs on Ollama's new engine, not on llama.cpp's runner), or run one call at a time ([workflow] parallel = 1)"
	if strings.Contains(lower, "seq_cp()") {
		return "llama.cpp's runner cannot copy one slot's computed prompt into another, which Ollama's multi-user cache asks of it: " + fix
	}
	return "if the server's log says GGML_ASSERT ... seq_cp() is only supported for full KV buffers, the server runs with the multi-user cache on llama.cpp's runner: " + fix +
		"; if it says it ran out of memory, use a smaller model or fewer slots (OLLAMA_NUM_PARALLEL)"
}

// isContextOverflow recognises the server refusing a prompt longer than
// the window (with truncate=false), in the wordings Ollama has used.
func isContextOverflow(lower string) bool {
	return strings.Contains(lower, "exceeds the context length") ||
		strings.Contains(lower, "exceed_context_size") ||
		strings.Contains(lower, "exceeds maximum context length") ||
		strings.Contains(lower, "context length exceeded") ||
		// vLLM and llama.cpp's server, on the OpenAI-compatible path.
		strings.Contains(lower, "maximum context length is") ||
		strings.Contains(lower, "exceeds the available context size")
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// transportFailure sorts an error from sending the request or reading the
// answer. parent is the caller's context, attempt the request's own.
func (o *conn) transportFailure(parent, attempt context.Context, err error) *failure {
	if perr := parent.Err(); perr != nil {
		f := &failure{kind: KindOther, msg: "the call was cancelled", err: context.Cause(parent)}
		if errors.Is(perr, context.DeadlineExceeded) {
			f.kind = KindUnavailable
			f.msg = "the call ran out of time"
			f.hint = "raise [model] timeout, or use a smaller model or shorter inputs"
		}
		return f
	}
	if errors.Is(err, errAnswerCap) {
		return &failure{kind: KindStream, retry: retryNever, capped: true, msg: "the answer's body went past its cap", err: err}
	}
	var refused *act.Refusal
	if errors.As(err, &refused) {
		// Nothing was sent: asking again gets the same answer.
		return &failure{kind: KindOther, retry: retryNever, msg: "no request was sent", err: refused}
	}
	var dl *deadlineError
	if errors.As(context.Cause(attempt), &dl) {
		// Retrying would take as long again.
		return &failure{kind: KindUnavailable, retry: retryNever, msg: dl.Error(), err: dl,
			hint: "the server kept sending without finishing; check its log, or ask for a shorter answer (max_output)"}
	}
	var stall *stallError
	if errors.As(context.Cause(attempt), &stall) {
		f := &failure{kind: KindUnavailable, retry: retryTransient, msg: stall.Error(), err: stall}
		if stall.first {
			f.hint = "the model may be loading or the prompt evaluating slowly; check `ollama ps`, or raise the first-byte timeout"
		} else {
			f.hint = "the server stopped sending mid-answer; check " + o.dialect.server + "'s log"
		}
		return f
	}
	f := &failure{kind: KindUnavailable, err: err, unreachable: true, msg: fmt.Sprintf("unable to reach %s at %s", o.dialect.server, o.base)}
	hintStart := o.dialect.startHint(o.base)
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) && !o.reached.Load():
		// Nothing has ever answered at this address: no server is
		// running, and waiting will not start one. Say so at once.
		f.msg = fmt.Sprintf("no model server at %s", o.base)
		f.hint = hintStart
	case errors.Is(err, syscall.ECONNREFUSED):
		// The server answered before and now refuses connections: it
		// stopped. Retries are for answers that fail; waiting ten seconds
		// for a server that is not running only delays the news.
		f.msg = fmt.Sprintf("the model server at %s stopped answering", o.base)
		f.hint = hintStart
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		f.hint = "the server's host name does not resolve: check OLLAMA_HOST or [model] base_url"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		f.retry, f.unreachable, f.closed = retryTransient, false, true
		f.msg = "the connection to " + o.dialect.server + " closed unexpectedly"
		f.hint = "the server may have restarted or run out of memory; check its log"
	case errors.As(err, &netErr) && netErr.Timeout():
		f.retry, f.hint = retryTransient, hintStart
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		f.retry, f.hint = retryTransient, hintStart
	default:
		f.hint = hintStart
	}
	return f
}

// toError turns the last failure of a call into the error callers see.
func (f *failure) toError(stage, model string, attempts int, took time.Duration) *Error {
	msg := f.msg
	// A refused connection is the whole story: how often icm knocked
	// before it says nothing more.
	if attempts > 1 && !f.unreachable {
		msg = fmt.Sprintf("%s (after %d attempts over %s)", msg, attempts, human.Duration(took))
	}
	hint := f.hint
	if f.kind == KindModelMissing && model != "" {
		hint = fmt.Sprintf("the server has no model %q: run `ollama pull %s` or `icm pull %s`", model, model, model)
	}
	return &Error{Kind: f.kind, Stage: stage, Model: model, Msg: msg, Hint: hint, Err: f.err, Status: f.status, Attempts: attempts,
		Unreachable: f.unreachable, URL: f.url, StartCommand: f.startCommand}
}
