package llm

import (
	"sync"
	"time"
)

// How long what a server said about counting stands.
const (
	// servedTTL is how long an Ollama server's model digests are
	// trusted: a pull or create under the same name is noticed within a
	// minute, and a language server that counts after every edit asks
	// the server about once a minute rather than on every keystroke.
	servedTTL = time.Minute
	// servedErrTTL is how long a failed /api/tags stands, so a server
	// that is down is not asked again on every count.
	servedErrTTL = 15 * time.Second
	// tokenizeRetry is how long a /tokenize probe that failed for a
	// passing reason (no answer, a 5xx, a refused key) stands before
	// the server is probed again. A server that answered that it has no
	// such endpoint is never probed again.
	tokenizeRetry = time.Minute
)

// CountMemory is what model clients learn about servers to count
// prompts before a call, shared between clients: which model digests
// each Ollama server serves (to trust the local files) and whether each
// OpenAI-compatible server has a tokenize endpoint, and which. A caller
// that makes a new client per request (the language server, per
// analysis) passes one CountMemory to all of them with WithCountMemory,
// so a server is asked once per expiry rather than once per client. It
// is safe for concurrent use.
type CountMemory struct {
	mu       sync.Mutex
	served   map[string]*digests       // by Ollama server base URL
	tokenize map[string]*tokenizeProbe // by server root URL
}

// NewCountMemory returns an empty memory.
func NewCountMemory() *CountMemory {
	return &CountMemory{served: map[string]*digests{}, tokenize: map[string]*tokenizeProbe{}}
}

// WithCountMemory shares m between clients (see CountMemory). Without
// it each client remembers for itself.
func WithCountMemory(m *CountMemory) Option {
	return func(o *settings) { o.memory = m }
}

// digestsOf is the digest record of the server at base.
func (m *CountMemory) digestsOf(base string) *digests {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.served[base]
	if !ok {
		d = &digests{}
		m.served[base] = d
	}
	return d
}

// probeOf is the tokenize probe record of the server at root.
func (m *CountMemory) probeOf(root string) *tokenizeProbe {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.tokenize[root]
	if !ok {
		p = &tokenizeProbe{}
		m.tokenize[root] = p
	}
	return p
}
