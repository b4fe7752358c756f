package lsp

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/session"
)

// modelListTTL is how long a model server's list of installed models is
// trusted before it is asked again (a `ollama pull` in a terminal shows
// up within it).
const modelListTTL = 30 * time.Second

// modelLists keeps each model server's installed models, asked off the
// analysis path: config.toml's model check and completion read it.
type modelLists struct {
	mu sync.Mutex
	m  map[string]*modelList
}

type modelList struct {
	names []string
	known bool
	at    time.Time
	// done is closed when the fetch in flight ends; nil when none is.
	done chan struct{}
}

// installedModels returns the models the workspace's server has, as last
// asked; ok is false when the server has not answered (yet). A list older
// than modelListTTL is asked for again in the background, and the
// workspace is analysed again when the answer differs.
func (s *Server) installedModels(st *wsState, sess *session.Session) ([]string, bool) {
	l := s.models.entry(sess.ModelKey())
	s.models.mu.Lock()
	names, known, fresh, fetching := l.names, l.known, time.Since(l.at) < modelListTTL, l.done != nil
	if !fresh && !fetching {
		l.done = make(chan struct{})
	}
	s.models.mu.Unlock()
	if !fresh && !fetching {
		s.goBackground(func() { s.fetchModels(st, sess, l) })
	}
	return names, known
}

// awaitModels is installedModels that waits (within ctx) for a first answer.
func (s *Server) awaitModels(ctx context.Context, st *wsState, sess *session.Session) []string {
	names, ok := s.installedModels(st, sess)
	if ok {
		return names
	}
	l := s.models.entry(sess.ModelKey())
	s.models.mu.Lock()
	done := l.done
	s.models.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	return l.names
}

func (s *Server) fetchModels(st *wsState, sess *session.Session, l *modelList) {
	names, err := sess.Models(st.ctx)
	known := err == nil
	if err != nil {
		s.log.Info("unable to list the model server's models", "err", err)
	}
	s.models.mu.Lock()
	changed := known != l.known || !slices.Equal(names, l.names)
	if known || !l.known {
		l.names, l.known = names, known
	}
	l.at = time.Now()
	close(l.done)
	l.done = nil
	s.models.mu.Unlock()
	if changed {
		st.touch(false)
	}
}

func (m *modelLists) entry(host string) *modelList {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]*modelList{}
	}
	l, ok := m.m[host]
	if !ok {
		l = &modelList{}
		m.m[host] = l
	}
	return l
}

// modelFacts is what config.toml's model check needs: the installed models
// (nil while the server has not answered, which skips the check) and how
// to name the server.
func (s *Server) modelFacts(st *wsState, sess *session.Session) ([]string, string) {
	names, ok := s.installedModels(st, sess)
	if !ok {
		return nil, ""
	}
	if names == nil {
		names = []string{}
	}
	if u := sess.ServerURL(); u != "" {
		return names, "the model server at " + u
	}
	return names, "the model server"
}

// forget drops every list, so the next check asks again (after a pull).
func (m *modelLists) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range m.m {
		l.at = time.Time{}
	}
}
