package ollamatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// maxBody bounds a request body; prompts in tests are far smaller.
const maxBody = 64 << 20

// Server is the scripted model server: an Engine behind Ollama's HTTP API on
// a loopback port. Script it and read what it received through the Engine
// methods it embeds (On, Enqueue, Default, ChatRequests, Stats ...).
type Server struct {
	*Engine

	ln      net.Listener
	http    *http.Server
	cancel  context.CancelFunc
	served  chan struct{}
	started time.Time

	mu       sync.Mutex
	closed   bool
	handlers sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// New starts a server on 127.0.0.1 for a test and closes it when the test
// ends. Unless cfg.AllowUnscripted is set, a chat call that nothing in the
// script answered fails the test at the end.
func New(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		tb.Fatalf("ollamatest: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("ollamatest: closing the server: %v", err)
		}
		if u := s.Unscripted(); len(u) > 0 && !cfg.AllowUnscripted {
			tb.Errorf("ollamatest: %d chat call(s) had no scripted reply (answered HTTP 500); the first was for model %q with last user message %q",
				len(u), u[0].Model, u[0].LastUser())
		}
	})
	return s
}

// Listen starts a server on addr, which must be a loopback address
// ("127.0.0.1:0" picks a free port). The caller closes it.
func Listen(addr string, cfg Config) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("unable to listen on %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("unable to listen on %q: the scripted server binds loopback addresses only (use 127.0.0.1:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("unable to listen on %q: %w", addr, err)
	}
	// Every request's context derives from base, so Close can wake calls
	// that hang, wait for a slot or sleep through latency.
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		Engine:  NewEngine(cfg),
		ln:      ln,
		cancel:  cancel,
		served:  make(chan struct{}),
		started: time.Now().UTC().Truncate(time.Second),
	}
	s.http = &http.Server{
		Handler:           s.recorded(s.routes()),
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// URL returns the base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Client returns an Ollama API client for the server.
func (s *Server) Client() *api.Client {
	u, _ := url.Parse(s.URL())
	return api.NewClient(u, http.DefaultClient)
}

// Close stops the server: hanging and waiting calls end, connections
// close, and Close returns once every handler has returned. It is safe to
// call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		// Cut the connections first, so a call still waiting is answered
		// by a reset, as from a server that went away, not by an empty 200.
		if err := s.http.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			s.closeErr = fmt.Errorf("unable to close the scripted server: %w", err)
		}
		s.cancel()
		s.handlers.Wait()
		<-s.served
	})
	return s.closeErr
}

// enter counts a handler in, unless the server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// recordKey carries a request's recordID in its context.
type recordKey struct{}

// recordOf returns the recordID of the request being served.
func recordOf(ctx context.Context) recordID {
	id, _ := ctx.Value(recordKey{}).(recordID)
	return id
}

// recorded wraps the routes so every request is recorded with its body,
// status and times, whatever path it took.
func (s *Server) recorded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.enter() {
			writeError(w, http.StatusServiceUnavailable, "ollamatest: server closing")
			return
		}
		defer s.handlers.Done()
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("unable to read the request body: %v", err))
			return
		}
		id := s.begin(r.Method, r.URL.Path, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			p := recover()
			status := sw.sent()
			if p != nil {
				status = sw.status // 0 when the connection was cut before any status
			}
			s.finish(id, status, p != nil)
			if p != nil {
				panic(p) // http.ErrAbortHandler from a Drop turn: let net/http cut the connection
			}
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), recordKey{}, id)))
	})
}

// statusWriter remembers the status a handler sent.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader notes the first status before sending it.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write notes the implicit 200 of a first write.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is buffered, so each streamed line leaves at once.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sent is the status the client got; net/http sends 200 for a handler that wrote nothing.
func (w *statusWriter) sent() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
