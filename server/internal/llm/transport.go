package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/icm-tool/icm/server/internal/human"
)

// The client speaks HTTP itself and uses Ollama's api package for the
// wire types only. api.Client hides the response headers (no Retry-After),
// cannot tell a slow model load from a stalled stream (one context for
// both), turns an error object in a stream into a bare string error and
// allocates an 8 MB line buffer per call; each of those matters here.

// stallError is the cause set on a request that waited too long for data.
type stallError struct {
	first bool // no chunk had arrived yet
	wait  time.Duration
}

func (e *stallError) Error() string {
	if e.first {
		return fmt.Sprintf("no answer within %s", human.Duration(e.wait))
	}
	return fmt.Sprintf("the stream stalled: no data for %s", human.Duration(e.wait))
}

// watchdog cancels a request when its timer runs out; each chunk re-arms it.
type watchdog struct {
	mu     sync.Mutex
	t      *time.Timer
	cancel context.CancelCauseFunc
}

func (w *watchdog) arm(d time.Duration, cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.t != nil {
		w.t.Stop()
	}
	if d > 0 {
		w.t = time.AfterFunc(d, func() { w.cancel(cause) })
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.t != nil {
		w.t.Stop()
	}
}

// conn is one server connection: where it is, the shared settings, and
// the dialect that says how its answers are framed and how to talk about
// it in errors. Both backends make their requests through it.
type conn struct {
	settings
	base    *url.URL
	dialect dialect
	// reached is set once the server has answered anything. A refused
	// connection before that means no server is listening: it fails at
	// once, where one after it (a restart mid-run) is retried.
	reached *atomic.Bool
}

// newConn makes the connection both backends share.
func newConn(st settings, base *url.URL, d dialect) conn {
	if st.memory == nil {
		st.memory = NewCountMemory()
	}
	return conn{settings: st, base: base, dialect: d, reached: new(atomic.Bool)}
}

// dialect is what differs between the backends at the transport level.
type dialect struct {
	// server names the server in messages ("the Ollama server").
	server string
	// sse: streamed answers are server-sent events ("data: {...}" lines,
	// ended by "data: [DONE]") rather than one JSON object per line.
	sse bool
	// startHint says how to get a server running at an address.
	startHint func(base *url.URL) string
	// logHint says where the server explains its failures.
	logHint string
	// notServerHint is the advice for a 404 that is not about a model:
	// the address serves something else.
	notServerHint string
	// startCommand starts a server of this kind on this machine, "" when
	// there is no one way.
	startCommand string
}

// place records which server a failure came from, so its error can say
// where and how to start it.
func (o *conn) place(f *failure) {
	if f != nil {
		f.url, f.startCommand = o.base.String(), o.dialect.startCommand
	}
}

var ollamaDialect = dialect{
	server: "the Ollama server",
	startHint: func(base *url.URL) string {
		return fmt.Sprintf("start Ollama (`ollama serve`), or point the server address at a running one: OLLAMA_HOST, [model] base_url, or the editor's icm.ollama.host setting (now %s)", base)
	},
	logHint:       "see the Ollama server log (journalctl -u ollama, or ~/.ollama/logs/server.log) for the cause",
	notServerHint: "the address does not look like an Ollama server (no /api route): check OLLAMA_HOST or [model] base_url",
	startCommand:  "ollama serve",
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// exchange POSTs body to path (GETs it when body is nil) and hands each JSON value of the answer to
// each (one value for a plain answer, one per line for a stream). When
// stream is set, the first value must arrive within the first-byte limit
// and each later one within the idle limit; a plain answer arrives whole
// after generation, so only the caller's context bounds it.
func (o *conn) exchange(ctx context.Context, path string, body []byte, stream bool, each func(raw []byte) *failure) (f *failure) {
	return o.exchangeBounded(ctx, path, body, stream, bounds{}, each)
}

// exchangeBounded is exchange with bounds on the answer: past b.bytes of
// body the exchange ends with a capped failure, and past b.total it is
// cancelled even while data keeps coming (the idle watchdog cannot tell a
// server that talks forever from one that is working).
func (o *conn) exchangeBounded(ctx context.Context, path string, body []byte, stream bool, b bounds, each func(raw []byte) *failure) (f *failure) {
	defer func() { o.place(f) }()
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := &watchdog{cancel: cancel}
	defer wd.stop()
	if b.total > 0 {
		t := time.AfterFunc(b.total, func() { cancel(&deadlineError{total: b.total}) })
		defer t.Stop()
	}
	if stream {
		wd.arm(o.firstByte, &stallError{first: true, wait: o.firstByte})
	}
	method, reader := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, reader = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, o.base.JoinPath(path).String(), reader)
	if err != nil {
		return &failure{kind: KindOther, msg: "unable to build the request", err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case stream && o.dialect.sse:
		req.Header.Set("Accept", "text/event-stream")
	case stream:
		req.Header.Set("Accept", "application/x-ndjson")
	default:
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", "icm")
	if o.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.apiKey)
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		return o.transportFailure(ctx, actx, err)
	}
	o.reached.Store(true)
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return statusFailure(resp, data, o.now(), o.dialect)
	}
	var answer io.Reader = resp.Body
	if b.bytes > 0 {
		answer = &capReader{r: resp.Body, left: b.bytes}
	}
	if stream && o.dialect.sse {
		return o.readEvents(ctx, actx, answer, wd, each)
	}
	dec := json.NewDecoder(answer)
	idle := &stallError{wait: o.idle}
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var syn *json.SyntaxError
			if errors.Is(err, errAnswerCap) {
				return o.transportFailure(ctx, actx, err)
			}
			if errors.As(err, &syn) {
				return &failure{kind: KindStream, retry: retryOnce, msg: "the server's answer is not JSON", err: err}
			}
			return o.transportFailure(ctx, actx, err)
		}
		if stream {
			wd.arm(o.idle, idle)
		}
		if f := each(raw); f != nil {
			return f
		}
	}
}

// serverAnswer pulls the message out of an error body: Ollama's
// {"error": "..."} or, from a proxy or another server, the text itself.
func serverAnswer(data []byte) (msg string, isJSON bool) {
	var e struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error != nil {
		switch v := e.Error.(type) {
		case string:
			return v, true
		case map[string]any: // OpenAI-style {"error": {"message": ...}}
			if m, ok := v["message"].(string); ok {
				return m, true
			}
		}
		b, _ := json.Marshal(e.Error)
		return string(b), true
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s, false
}
