package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/tokens"
)

// Fallback returns a client that answers a call with the first model of
// the list req.Model, models... that the server can serve: when a model
// is missing, or the server fails with it (cannot load it, breaks off
// mid-answer, refuses it as unable to use tools or think), the call is
// made again with the next one. A model that failed so is skipped by
// later calls through the same client, so a stage does not pay for it
// again on every call. A server that cannot be reached is not the
// model's fault and ends the call: another model on it would fare no
// better. With no models it returns c itself.
func Fallback(c Client, models ...string) Client {
	if len(models) == 0 {
		return c
	}
	return &fallback{Client: c, models: models, skip: map[string]bool{}}
}

type fallback struct {
	Client
	models []string

	mu   sync.Mutex
	skip map[string]bool
}

// modelFault reports whether err is about the model rather than the
// request or the connection.
func modelFault(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindModelMissing, KindOther, KindStream:
		return true
	case KindBadRequest:
		return strings.Contains(strings.ToLower(e.Msg), "does not support")
	}
	return false
}

func (f *fallback) candidates(first string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, m := range append([]string{first}, f.models...) {
		if m == "" || seen[m] || f.skip[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// Chat tries the models in order.
func (f *fallback) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	models := f.candidates(req.Model)
	if len(models) == 0 {
		// Every model failed before; try the first again rather than
		// answer without a call.
		models = []string{req.Model}
	}
	delivered := false
	if onDelta := req.OnDelta; onDelta != nil {
		req.OnDelta = func(d Delta) {
			if d.Content != "" || d.Thinking != "" {
				delivered = true
			}
			onDelta(d)
		}
	}
	var tried []string
	for i, m := range models {
		if delivered {
			req.OnDelta(Delta{Restart: true})
			delivered = false
		}
		req.Model = m
		resp, err := f.Client.Chat(ctx, req)
		if err == nil || ctx.Err() != nil || !modelFault(err) {
			return resp, err
		}
		f.mu.Lock()
		f.skip[m] = true
		f.mu.Unlock()
		tried = append(tried, m)
		if i == len(models)-1 {
			var e *Error
			if errors.As(err, &e) && len(tried) > 1 {
				c := *e
				c.Msg = fmt.Sprintf("%s (tried the models %s in turn)", e.Msg, strings.Join(tried, ", "))
				return nil, &c
			}
			return nil, err
		}
	}
	return nil, errors.New("no model to call") // unreachable: models is never empty
}

// CountPrompt counts with the client's own counter: the first model is
// the one the call is made with.
func (f *fallback) CountPrompt(ctx context.Context, req ChatRequest) (tokens.Count, error) {
	return CountPrompt(ctx, f.Client, req)
}
