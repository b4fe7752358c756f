package ollamatest

import (
	"context"
	"sync"
	"time"
)

// Config describes the scripted server: its models, the load model (latency
// and slots) and how it counts tokens. The zero Config serves one default
// model named "tiny" with no latency and unlimited slots.
type Config struct {
	// Models are installed: listed by /api/tags, described by /api/show and
	// answered on /api/chat. Empty means one default Model named "tiny".
	Models []Model
	// Pullable models are not installed, but /api/pull fetches them (or
	// fails with their PullError); a pulled model is installed from then on.
	Pullable []Model
	// Latency is how long every chat call takes inside its slot before the
	// answer is sent.
	Latency time.Duration
	// Slots is how many chat calls are answered at once (Ollama's
	// OLLAMA_NUM_PARALLEL); calls beyond it wait. Zero means no limit.
	Slots int
	// MaxQueue is how many calls may wait for a slot before more are
	// refused with 503 (Ollama's OLLAMA_MAX_QUEUE). Zero means no limit.
	MaxQueue int
	// DefaultNumCtx is the window of a call that sends no num_ctx. Default 4096.
	DefaultNumCtx int
	// CountTokens counts the tokens of a text (the rendered prompt, the
	// answer). Default: bytes divided by 4, rounded up.
	CountTokens func(text string) int
	// Version is what /api/version answers. Default "0.17.4".
	Version string
	// Tokenize, when set, serves a tokenize endpoint the way that server
	// does (TokenizeVLLM, TokenizeLlamaCpp), counting as the chat
	// endpoints do; empty answers 404 there, as Ollama does.
	Tokenize string
	// Embed, when set, is the vector /api/embed answers for a text, for
	// any model. Default: the text's words hashed onto the model's
	// EmbeddingLength dimensions, normalized (same text, same vector;
	// texts sharing words point alike).
	Embed func(text string) []float32
	// AllowUnscripted keeps New from failing the test when a chat call found
	// no rule, queued turn or default (it is answered with HTTP 500 either way).
	AllowUnscripted bool
	// OnAnswered, when set, is called with each request's record once it
	// is answered, from the request's goroutine (scripted-ollama logs with it).
	OnAnswered func(Record)
}

// withDefaults fills the zero fields of a Config.
func (c Config) withDefaults() Config {
	if len(c.Models) == 0 {
		c.Models = []Model{{Name: "tiny"}}
	}
	if c.DefaultNumCtx <= 0 {
		c.DefaultNumCtx = 4096
	}
	if c.CountTokens == nil {
		c.CountTokens = quarterBytes
	}
	if c.Version == "" {
		c.Version = "0.17.4"
	}
	return c
}

// quarterBytes is the default token count: one token per four bytes, rounded up.
func quarterBytes(text string) int { return (len(text) + 3) / 4 }

// Engine is the transport-agnostic core of the scripted server: the script
// (rules, queue, default), the installed models, the load model and the
// record of what was received. HTTP fronts (Ollama's API here) decode a
// call into a Request, ask the engine for a Reply and write it in their
// own wire format. All methods are safe for concurrent use.
type Engine struct {
	cfg   Config
	slots chan struct{}

	mu sync.Mutex
	// changed is closed and replaced whenever Stats may have changed, so
	// Await can wait for a signal instead of polling.
	changed chan struct{}

	models []Model // installed, in Config order, then in pull order

	rules []*Rule
	queue []Turn
	def   func(*Request) Turn

	records    []Record
	chats      int
	unscripted []*Request
	toolCallN  int
	embedded   int

	active, waiting, peakActive, peakInFlight int
	// open counts requests recorded and not yet answered (see Stats.Open).
	open int
}

// NewEngine makes an engine for cfg. Most tests use New, which wraps an
// engine in an HTTP server; an engine alone serves other fronts.
func NewEngine(cfg Config) *Engine {
	cfg = cfg.withDefaults()
	e := &Engine{cfg: cfg, changed: make(chan struct{})}
	if cfg.Slots > 0 {
		e.slots = make(chan struct{}, cfg.Slots)
	}
	for _, m := range cfg.Models {
		e.models = append(e.models, m.withDefaults())
	}
	return e
}

// Config returns the configuration the engine runs with, defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// notifyLocked wakes every Await; the caller holds e.mu.
func (e *Engine) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Models returns the installed models, defaults filled in.
func (e *Engine) Models() []Model {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Model(nil), e.models...)
}

// Model returns the installed model of that name ("tiny" finds "tiny:latest").
func (e *Engine) Model(name string) (Model, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.modelLocked(name)
}

func (e *Engine) modelLocked(name string) (Model, bool) {
	want := normalizeName(name)
	if want == "" {
		return Model{}, false
	}
	for _, m := range e.models {
		if normalizeName(m.Name) == want {
			return m, true
		}
	}
	return Model{}, false
}

// pullable returns the pullable model of that name.
func (e *Engine) pullable(name string) (Model, bool) {
	want := normalizeName(name)
	for _, m := range e.cfg.Pullable {
		if normalizeName(m.Name) == want {
			return m.withDefaults(), true
		}
	}
	return Model{}, false
}

// install adds a pulled model to the installed ones (once).
func (e *Engine) install(m Model) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.modelLocked(m.Name); ok {
		return
	}
	m.PullError = ""
	e.models = append(e.models, m.withDefaults())
	e.notifyLocked()
}

// Stats is a snapshot of what the engine has seen.
type Stats struct {
	// Requests counts HTTP requests received on any path.
	Requests int
	// Chats counts chat calls decoded.
	Chats int
	// Active counts chat calls holding a slot now; Waiting those waiting for one.
	Active, Waiting int
	// PeakActive is the most chat calls ever answered at once (never above
	// Slots): the concurrency a benchmark achieved.
	PeakActive int
	// PeakInFlight is the most chat calls ever in the engine at once,
	// waiting or answered: the concurrency the client attempted.
	PeakInFlight int
	// Unscripted counts chat calls nothing in the script answered.
	Unscripted int
	// Open counts requests received whose record is not complete yet. A
	// client can read the last byte of an answer before the server has
	// recorded how it went, so a test that reads the records' Status,
	// Answered or Aborted right after its calls returned waits for Open
	// to fall to 0 first (AwaitAnswered).
	Open int
}

// Stats returns a snapshot of the counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.statsLocked()
}

func (e *Engine) statsLocked() Stats {
	return Stats{
		Requests:     len(e.records),
		Chats:        e.chats,
		Active:       e.active,
		Waiting:      e.waiting,
		PeakActive:   e.peakActive,
		PeakInFlight: e.peakInFlight,
		Unscripted:   len(e.unscripted),
		Open:         e.open,
	}
}

// PeakConcurrency is Stats().PeakActive: the most calls answered at once.
func (e *Engine) PeakConcurrency() int { return e.Stats().PeakActive }

// Await blocks until cond holds for the current Stats, or ctx ends. Tests
// use it to wait for an event ("two calls are in their slots") without sleeping.
func (e *Engine) Await(ctx context.Context, cond func(Stats) bool) error {
	for {
		e.mu.Lock()
		st, ch := e.statsLocked(), e.changed
		e.mu.Unlock()
		if cond(st) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// AwaitAnswered blocks until every request received so far has been
// answered and its record completed (Stats.Open is 0), or ctx ends. Call
// it before reading the records' Status, Answered or Aborted: a client's
// call can return before the server has recorded its own answer.
func (e *Engine) AwaitAnswered(ctx context.Context) error {
	return e.Await(ctx, func(s Stats) bool { return s.Open == 0 })
}

// AwaitChats blocks until at least n chat calls have been received, or ctx ends.
func (e *Engine) AwaitChats(ctx context.Context, n int) error {
	return e.Await(ctx, func(s Stats) bool { return s.Chats >= n })
}
