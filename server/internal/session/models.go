package session

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
)

// modelsWait bounds asking the model server which models it has.
const modelsWait = 5 * time.Second

// Models lists the models the model server in force has installed (for
// config.toml's model check and completion). It tries once, briefly: the
// editor asks in the background and must not wait for a server that is
// not there.
func (s *Session) Models(ctx context.Context) ([]string, error) {
	if s.modelBlocked() {
		return nil, s.refusal("ask the model server it names for its models")
	}
	c, err := s.newClient(llm.WithRetry(time.Second, 1))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, modelsWait)
	defer cancel()
	names, err := llm.ListModels(ctx, c)
	if err != nil {
		return nil, fault.From(err)
	}
	return names, nil
}

// ServerURL is the address of the model server in force ("" when the
// client cannot say, as a pool of several cannot).
func (s *Session) ServerURL() string {
	c, err := s.Client()
	if err != nil {
		return ""
	}
	if b, ok := c.(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return ""
}

// PullProgress is one step of a model download, as the server reports it.
type PullProgress = llm.PullProgress

// Pull downloads model ("" for the model in force) onto the model server,
// reporting each step (status, bytes done of total, 0 when unknown) to
// progress; it returns the model pulled.
func (s *Session) Pull(ctx context.Context, model string, progress func(status string, completed, total int64)) (string, error) {
	return s.PullSteps(ctx, model, func(p PullProgress) {
		if progress != nil {
			progress(p.Status, p.Completed, p.Total)
		}
	})
}

// PullSteps is Pull reporting every step as the server sends it (with the
// layer's digest, for a view that draws one bar per layer). A person is
// waiting: a server that is not there is reported within seconds.
func (s *Session) PullSteps(ctx context.Context, model string, progress func(PullProgress)) (string, error) {
	if model == "" {
		model = s.Model()
	}
	if model == "" {
		return "", fault.Config("no model named to pull", "set [model] name in config.toml, or the model setting", s.ws.Config.Path)
	}
	if s.modelBlocked() {
		return model, s.refusal("pull a model onto the model server it names")
	}
	c, err := s.newClient(llm.WithRetry(10*time.Second, 4))
	if err != nil {
		return model, err
	}
	err = c.Pull(ctx, model, func(p llm.PullProgress) {
		if progress != nil {
			progress(p)
		}
	})
	if err != nil {
		return model, fault.From(err)
	}
	// The model is there now: a check of the model name asks again.
	return model, nil
}
