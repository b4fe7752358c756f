package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
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
		return fmt.Sprintf("no answer within %s", e.wait)
	}
	return fmt.Sprintf("the stream stalled: no data for %s", e.wait)
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

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// exchange POSTs body to path and hands each JSON value of the answer to
// each (one value for a plain answer, one per line for a stream). When
// stream is set, the first value must arrive within the first-byte limit
// and each later one within the idle limit; a plain answer arrives whole
// after generation, so only the caller's context bounds it.
func (o *Ollama) exchange(ctx context.Context, path string, body []byte, stream bool, each func(raw []byte) *failure) *failure {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := &watchdog{cancel: cancel}
	defer wd.stop()
	if stream {
		wd.arm(o.firstByte, &stallError{first: true, wait: o.firstByte})
	}
	req, err := http.NewRequestWithContext(actx, http.MethodPost, o.base.JoinPath(path).String(), bytes.NewReader(body))
	if err != nil {
		return &failure{kind: KindOther, msg: "unable to build the request", err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", "application/x-ndjson")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", "icm")
	resp, err := o.hc.Do(req)
	if err != nil {
		return o.transportFailure(ctx, actx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return statusFailure(resp, data, o.now())
	}
	dec := json.NewDecoder(resp.Body)
	idle := &stallError{wait: o.idle}
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var syn *json.SyntaxError
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
