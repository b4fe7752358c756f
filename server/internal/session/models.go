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
func (ms ModelServer) Models(ctx context.Context) ([]string, error) {
	s := ms.s
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
		// Told as a run tells it: the same words about this machine and
		// the same fixes.
		return nil, s.onThisMachine(fault.From(err), s.Model())
	}
	return names, nil
}

// URL is the address of the model server in force ("" when the
// client cannot say, as a pool of several cannot).
func (ms ModelServer) URL() string {
	s := ms.s
	c, err := s.modelClient()
	if err != nil {
		return ""
	}
	return baseURL(c)
}
