package llm

import (
	"context"
	"errors"
	"time"
)

// begin does what every backend's Chat does first: it picks the model
// (the request's, else the client's), refuses a call with no model or no
// messages, bounds the call by timeout when set, and reads the model's
// details through show (errors carry the request's stage). The caller
// must call cancel.
func begin(ctx context.Context, req ChatRequest, defaultModel string, timeout time.Duration,
	show func(context.Context, string) (*ModelInfo, error)) (context.Context, context.CancelFunc, string, *ModelInfo, error) {
	noop := func() {}
	model := req.Model
	if model == "" {
		model = defaultModel
	}
	if model == "" {
		return ctx, noop, "", nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Msg: "no model named", Hint: "set [model] name in config.toml"}
	}
	if len(req.Messages) == 0 {
		return ctx, noop, model, nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: model, Msg: "no messages to send"}
	}
	cancel := noop
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	info, err := show(ctx, model)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Stage == "" {
			e.Stage = req.Stage
		}
		cancel()
		return ctx, noop, model, nil, err
	}
	return ctx, cancel, model, info, nil
}
