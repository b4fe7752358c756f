package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// Defaults of the Ollama client. Each can be changed with an option.
const (
	// DefaultMaxOutput is the room kept for an answer when neither the
	// request nor the client says.
	DefaultMaxOutput = 4096
	// DefaultFirstByteTimeout bounds the wait for the first streamed chunk:
	// it covers loading the model and evaluating the prompt, both slow on CPU.
	DefaultFirstByteTimeout = 5 * time.Minute
	// DefaultIdleTimeout bounds the silence between two streamed chunks; a
	// model that is generating sends one every few hundred milliseconds.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultRetryBudget bounds the time in which a failed attempt may be
	// tried again (measured from the first attempt): long enough for a
	// server restart or a queue to drain, short enough that a server that
	// is not running is reported within a minute.
	DefaultRetryBudget = time.Minute
	// DefaultMaxAttempts bounds the attempts of one call.
	DefaultMaxAttempts = 6
	// DefaultConnectTimeout bounds opening a connection to the server.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultLowCountRatio: a prompt_eval_count under this share of the
	// estimate means the server dropped part of the prompt (see truncation.go).
	DefaultLowCountRatio = 0.5
)

// settings are what the options set. Both HTTP clients (Ollama's native
// API and the OpenAI-compatible one) share them, so every option works for
// either; an option that means nothing to a backend is ignored by it.
type settings struct {
	hc *http.Client
	// permit is asked before every request the client makes (package
	// act); nil refuses them all.
	permit act.Permit
	model  string
	getenv func(string) string

	maxOutput   int
	callTimeout time.Duration
	firstByte   time.Duration
	idle        time.Duration
	// streamTotal bounds one attempt at an answer, whatever keeps arriving.
	streamTotal time.Duration

	retryBudget time.Duration
	maxAttempts int
	baseDelay   time.Duration
	maxDelay    time.Duration
	sleep       func(context.Context, time.Duration) error
	jitter      func(time.Duration) time.Duration
	now         func() time.Time

	estimator     tokens.Estimator
	lowCountRatio float64

	// modelFiles is where the Ollama client finds models' files to count
	// prompts exactly; modelFilesSet says WithModelFiles chose it.
	modelFiles    *ollamamodel.Cache
	modelFilesSet bool
	// memory is what the client learns about servers to count prompts,
	// shared with other clients when WithCountMemory gives one.
	memory *CountMemory

	baseURL string // the option's value, resolved by the constructor

	// apiKey is sent as a bearer token (OpenAI-compatible servers).
	apiKey string
	// contextLength is the model's window when the server cannot say.
	contextLength int
}

// defaultSettings are the settings before any option.
func defaultSettings() settings {
	return settings{
		getenv:        os.Getenv,
		maxOutput:     DefaultMaxOutput,
		firstByte:     DefaultFirstByteTimeout,
		idle:          DefaultIdleTimeout,
		streamTotal:   DefaultStreamDeadline,
		retryBudget:   DefaultRetryBudget,
		maxAttempts:   DefaultMaxAttempts,
		baseDelay:     500 * time.Millisecond,
		maxDelay:      15 * time.Second,
		sleep:         sleepContext,
		jitter:        randomJitter,
		now:           time.Now,
		lowCountRatio: DefaultLowCountRatio,
	}
}

// Ollama is a Client for an Ollama server's native API (/api/chat,
// /api/show, /api/pull). It is safe for concurrent use.
type Ollama struct {
	conn
	models *modelCache

	filesOnce  sync.Once
	filesCache *ollamamodel.Cache
}

// Option configures a client (NewOllama, NewOpenAI, FromConfig).
type Option func(*settings)

// OllamaOption is the name options had before there was a second backend.
type OllamaOption = Option

// WithBaseURL sets the server address (same forms as OLLAMA_HOST);
// empty keeps OLLAMA_HOST or the default.
func WithBaseURL(u string) Option { return func(o *settings) { o.baseURL = u } }

// WithGetenv sets how OLLAMA_HOST is read (os.Getenv by default).
func WithGetenv(getenv func(string) string) Option {
	return func(o *settings) { o.getenv = getenv }
}

// WithPermit sets what allows the client to contact its server (and a
// pull from the registry a model name names): the session's, which is
// the workspace's trust and the person's own settings. A client without
// one contacts nothing.
func WithPermit(p act.Permit) Option { return func(o *settings) { o.permit = p } }

// WithModel sets the model used when a request names none.
func WithModel(name string) Option { return func(o *settings) { o.model = name } }

// WithMaxOutput sets the default room kept for answers (num_predict).
func WithMaxOutput(n int) Option {
	return func(o *settings) {
		if n > 0 {
			o.maxOutput = n
		}
	}
}

// WithCallTimeout bounds one Chat call, retries included (0: no bound
// beyond the caller's context).
func WithCallTimeout(d time.Duration) Option { return func(o *settings) { o.callTimeout = d } }

// WithRetry sets the retry budget (time since the first attempt after
// which no new attempt starts) and the most attempts per call.
func WithRetry(budget time.Duration, maxAttempts int) Option {
	return func(o *settings) {
		o.retryBudget = budget
		if maxAttempts > 0 {
			o.maxAttempts = maxAttempts
		}
	}
}

// ConfigOptions returns the options a workspace's [model] section sets.
func ConfigOptions(m config.Model) []Option {
	opts := []Option{WithModel(m.Name), WithMaxOutput(m.MaxOutput)}
	if m.BaseURL != "" {
		opts = append(opts, WithBaseURL(m.BaseURL))
	}
	if m.Timeout.Duration > 0 {
		opts = append(opts, WithCallTimeout(m.Timeout.Duration))
	}
	return opts
}

// NewOllama returns a client for the server at the base URL option, else
// OLLAMA_HOST, else DefaultOllamaHost.
func NewOllama(opts ...Option) (*Ollama, error) {
	st := defaultSettings()
	for _, opt := range opts {
		opt(&st)
	}
	addr, source := st.baseURL, "base_url"
	if strings.TrimSpace(addr) == "" {
		addr, source = st.getenv("OLLAMA_HOST"), "OLLAMA_HOST"
	}
	base, err := OllamaHostURL(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if strings.TrimSpace(addr) == "" {
		addr = DefaultOllamaHost
	}
	if st.hc == nil {
		st.hc = newHTTPClient(st.permit, base, addr)
	}
	return &Ollama{conn: newConn(st, base, ollamaDialect), models: newModelCache()}, nil
}

// BaseURL returns the server address the client talks to.
func (o *Ollama) BaseURL() string { return o.base.String() }

// newHTTPClient is the client of the server at base, configured as
// addr (the setting, OLLAMA_HOST or the default, as written): every
// request asks permit, and none goes to another server.
func newHTTPClient(permit act.Permit, base *url.URL, addr string) *http.Client {
	a := act.Action{Kind: act.Contact, URL: base.String(), Named: act.Named{Address: addr}}
	return act.HTTPClient(permit, a, act.HTTP{ConnectTimeout: DefaultConnectTimeout, Tune: func(t *http.Transport) {
		// Several calls may run at once (For each items); keep their
		// connections instead of reopening one per call.
		t.MaxIdleConnsPerHost = 16
	}})
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func randomJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

var _ Client = (*Ollama)(nil)
