package session

import (
	"context"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
)

// windowWait bounds how long asking for the model's window may take.
const windowWait = 10 * time.Second

// modelClient returns the model client the settings and config.toml ask for
// (one server, or a pool over [[model.servers]]), built once.
func (s *Session) modelClient() (llm.Client, error) {
	if s.modelBlocked() {
		return nil, s.refusal("contact the model server it names")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.built {
		s.client, s.clientErr = s.newClient()
		s.built = true
	}
	return s.client, s.clientErr
}

func (s *Session) newClient(extra ...llm.Option) (llm.Client, error) {
	opts := []llm.Option{llm.WithPermit(s.permit())}
	if m := s.Model(); m != "" {
		opts = append(opts, llm.WithModel(m))
	}
	if h := s.host(); h != "" {
		opts = append(opts, llm.WithBaseURL(h))
	}
	// Every client counts (the window check before each call), so each
	// shares the loaded tokenizers and what servers said.
	if c := s.opts.Counting; c != nil {
		opts = append(opts, llm.WithModelFiles(c.files), llm.WithCountMemory(c.memory))
	}
	c, err := llm.FromConfig(s.modelConfig(), s.opts.Getenv, append(opts, extra...)...)
	if err != nil {
		return nil, fault.From(err)
	}
	return c, nil
}

// ConfiguredWindow is the context window config.toml states for a server
// that cannot be asked (an OpenAI-compatible one); false for Ollama,
// which Window asks.
func (ms ModelServer) ConfiguredWindow() (int, bool) {
	s := ms.s
	m := s.ws.Config.Model
	if p := m.Provider; p != "" && p != llm.ProviderOllama {
		return m.ContextLength, true
	}
	return 0, false
}

// Key identifies the model server and model the session's window
// questions go to, so a caller asks again only when it changes.
func (ms ModelServer) Key() string {
	s := ms.s
	return s.host() + "\x00" + s.modelConfig().BaseURL + "\x00" + s.Model()
}

// Window asks the model server for the context window of the model in
// force (0 with no error when it cannot tell); for an OpenAI-compatible
// server it is config.toml's context_length. It retries briefly: the
// editor asks in the background and must not wait long for a server that
// is not there.
func (ms ModelServer) Window(ctx context.Context) (int, error) {
	s := ms.s
	if w, ok := ms.ConfiguredWindow(); ok {
		return w, nil
	}
	model := s.Model()
	if model == "" || s.modelBlocked() {
		// Untrusted, the server the workspace names is not asked.
		return 0, nil
	}
	c, err := s.newClient(llm.WithRetry(2*time.Second, 2))
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, windowWait)
	defer cancel()
	info, err := c.Show(ctx, model)
	if err != nil {
		return 0, fault.From(err)
	}
	return info.ContextLength, nil
}
