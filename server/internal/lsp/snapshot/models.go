package snapshot

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/session"
)

// The model facts hovers and checks use: the context window of the model
// in force, asked of its server once per server and model, and the
// models each model server has installed, both off the analysis path.

// modelListTTL is how long a model server's list of installed models is
// trusted before it is asked again (a `ollama pull` in a terminal shows
// up within it).
const modelListTTL = 30 * time.Second

// awaitWindow waits for a context-window query in flight (a hover shows
// the window, and the first hover usually comes right after opening).
func (w *Workspace) awaitWindow(ctx context.Context) {
	w.mu.Lock()
	done := w.winDone
	w.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (w *Workspace) windowSize() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.window
}

// modelName is the model in force before any contract's ## Model.
func (w *Workspace) modelName() string {
	o, err := w.Acquire()
	if err != nil {
		return ""
	}
	defer o.Release()
	return o.sess.Model()
}

// ensureWindow learns how large the model's context window is: from
// config.toml for a server that cannot be asked, else from the server in
// the background; an answer that changes it triggers a new analysis so
// over-window contexts get flagged.
func (w *Workspace) ensureWindow(o *Opening) {
	sess := o.sess
	if win, ok := sess.ModelServer().ConfiguredWindow(); ok {
		w.mu.Lock()
		w.window = win
		w.mu.Unlock()
		return
	}
	key := sess.ModelServer().Key()
	w.mu.Lock()
	if sess.Model() == "" || w.winKey == key {
		w.mu.Unlock()
		return
	}
	w.winKey = key
	done := make(chan struct{})
	w.winDone = done
	w.mu.Unlock()
	o.hold() // for the query, which may outlast the analysis
	started := w.set.opts.Go(func() {
		defer o.Release()
		defer close(done)
		win, err := sess.ModelServer().Window(w.ctx)
		if err != nil {
			w.set.opts.Log.Info("unable to learn the model's context window", "model", sess.Model(), "err", err)
			return
		}
		w.set.opts.Log.Info("context window", "model", sess.Model(), "tokens", win)
		w.mu.Lock()
		changed := w.window != win
		w.window = win
		w.mu.Unlock()
		if changed {
			w.Touch(false)
		}
	})
	if !started {
		o.Release()
		close(done)
	}
}

// modelLists keeps each model server's installed models, asked off the
// analysis path: config.toml's model check and completion read it.
type modelLists struct {
	mu sync.Mutex
	m  map[string]*modelList
}

type modelList struct {
	names []string
	known bool
	// down is why the server did not answer when last asked (nil when it
	// answered, or failed another way): the next step is to start it.
	down error
	at   time.Time
	// done is closed when the fetch in flight ends; nil when none is.
	done chan struct{}
}

// installedModels returns the models the workspace's server has, as last
// asked; ok is false when the server has not answered (yet). A list older
// than modelListTTL is asked for again in the background, and the
// workspace is analysed again when the answer differs. It never waits.
func (s *Set) installedModels(w *Workspace, sess *session.Session) ([]string, bool) {
	l := s.models.entry(sess.ModelServer().Key())
	s.models.mu.Lock()
	names, known, fresh, fetching := l.names, l.known, time.Since(l.at) < modelListTTL, l.done != nil
	if !fresh && !fetching {
		l.done = make(chan struct{})
	}
	s.models.mu.Unlock()
	if !fresh && !fetching {
		s.opts.Go(func() { s.fetchModels(w, sess, l) })
	}
	return names, known
}

// awaitModels is installedModels that waits (within ctx) for a first answer.
func (s *Set) awaitModels(ctx context.Context, w *Workspace, sess *session.Session) []string {
	names, ok := s.installedModels(w, sess)
	if ok {
		return names
	}
	l := s.models.entry(sess.ModelServer().Key())
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

func (s *Set) fetchModels(w *Workspace, sess *session.Session, l *modelList) {
	names, err := sess.ModelServer().Models(w.ctx)
	known := err == nil
	var down error
	if err != nil {
		s.opts.Log.Info("unable to list the model server's models", "err", err)
		if fault.KindOf(err) == fault.KindModelUnreachable {
			down = err
		}
	}
	s.models.mu.Lock()
	changed := known != l.known || !slices.Equal(names, l.names) || (down == nil) != (l.down == nil)
	if known || !l.known {
		l.names, l.known = names, known
	}
	l.down = down
	l.at = time.Now()
	close(l.done)
	l.done = nil
	s.models.mu.Unlock()
	if changed {
		w.Touch(false)
	}
}

// serverModels is the newest answer of the session's model server to a
// request for its models, whichever model was in force when it was
// asked (the lists are kept per model setting; the server's models are
// the same), and down why it did not answer, when it did not. asked is
// false when it was never asked. It asks nothing.
func (s *Set) serverModels(sess *session.Session) (names []string, known bool, down error, asked bool) {
	key := sess.ModelServer().Key()
	server := key[:strings.LastIndexByte(key, 0)+1] // the key without its model
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	var newest time.Time
	for k, l := range s.models.m {
		if strings.HasPrefix(k, server) && !l.at.IsZero() && l.at.After(newest) {
			newest, names, known, down, asked = l.at, l.names, l.known, l.down, true
		}
	}
	return names, known, down, asked
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

// modelFacts is what the workspace's model server said of its models,
// for config.toml's model check: nil while it has not answered, which
// skips the check. A list older than modelListTTL is asked for again in
// the background; it never waits.
func (s *Set) modelFacts(w *Workspace, sess *session.Session) *session.ModelFacts {
	names, known := s.installedModels(w, sess)
	if !known {
		return nil
	}
	return &session.ModelFacts{Installed: names, Known: true}
}

// ForgetModels drops every list, so the next check asks again (after a pull).
func (s *Set) ForgetModels() {
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	for _, l := range s.models.m {
		l.at = time.Time{}
	}
}
