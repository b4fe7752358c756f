package llm

import (
	"context"
	"encoding/json"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// WithModelFiles sets where the Ollama client finds models' own files to
// count prompts exactly (see package ollamamodel); share one cache between
// clients so a vocabulary is loaded once per process. nil turns exact
// counting off. Without the option a client looks in the folders a local
// Ollama uses (OLLAMA_MODELS, else the platform's), with its own cache.
func WithModelFiles(c *ollamamodel.Cache) Option {
	return func(o *settings) { o.modelFiles, o.modelFilesSet = c, true }
}

// digests remembers an Ollama server's /api/tags answer: model name to
// manifest digest (see servedTTL).
type digests struct {
	mu  sync.Mutex
	at  time.Time
	m   map[string]string
	err error
	// names are the models as the server names them, sorted (Models).
	names []string
}

// CountPrompt counts req's prompt exactly when the model's files are on
// this machine and are the files the server serves (same manifest digest
// in /api/tags; a server on this machine that does not answer is trusted
// to use them), else estimates it.
func (o *Ollama) CountPrompt(ctx context.Context, req ChatRequest) (tokens.Count, error) {
	name := req.Model
	if name == "" {
		name = o.model
	}
	wire, err := o.countRequest(name, req)
	if err != nil {
		return tokens.Count{}, err
	}
	if c, ok := o.exactCount(ctx, name, wire); ok {
		return c, nil
	}
	return EstimatePrompt(req)
}

// PromptTokens renders and tokenizes req with the model's own files, as
// the server will: false when they are not on this machine or are not
// the files the server serves.
func (o *Ollama) PromptTokens(ctx context.Context, req ChatRequest) ([]int32, bool) {
	name := req.Model
	if name == "" {
		name = o.model
	}
	wire, err := o.countRequest(name, req)
	if err != nil {
		return nil, false
	}
	p, ok := o.exactPrompt(ctx, name, wire)
	return p.tokens, ok
}

// countRequest is the part of the wire request that shapes the prompt.
func (o *Ollama) countRequest(name string, req ChatRequest) (*api.ChatRequest, error) {
	apiTools, err := toAPITools(req.Tools)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Stage: req.Stage, Model: name, Msg: err.Error(),
			Hint: "fix the tool's input schema: its top level must be a JSON Schema object"}
	}
	w := &api.ChatRequest{Model: name, Messages: toAPIMessages(req.Messages), Tools: apiTools}
	if req.Think != nil {
		w.Think = &api.ThinkValue{Value: *req.Think}
	}
	return w, nil
}

// exactCount renders and tokenizes the request with the model's files.
func (o *Ollama) exactCount(ctx context.Context, name string, wire *api.ChatRequest) (tokens.Count, bool) {
	p, ok := o.exactPrompt(ctx, name, wire)
	return p.count, ok
}

// exactPrompt is a prompt rendered and tokenized with the model's own
// files: the tokens the server will compute or find in its cache.
type exactPrompt struct {
	count  tokens.Count
	tokens []int32
	model  *ollamamodel.Model
}

// exactPrompt renders and tokenizes the request with the model's files,
// when they are on this machine and the server serves them.
func (o *Ollama) exactPrompt(ctx context.Context, name string, wire *api.ChatRequest) (exactPrompt, bool) {
	cache := o.files()
	if cache == nil || name == "" {
		return exactPrompt{}, false
	}
	m, err := cache.Model(ctx, name)
	if err != nil {
		return exactPrompt{}, false
	}
	if !o.servesFiles(ctx, name, m.Digest()) {
		return exactPrompt{}, false
	}
	ids, err := m.TokensChat(wire)
	if err != nil {
		return exactPrompt{}, false
	}
	return exactPrompt{count: tokens.Count{Tokens: len(ids), Method: tokens.Exact, Tokenizer: m.Tokenizer()}, tokens: ids, model: m}, true
}

// answerTokens are the tokens a slot keeps after the prompt's: the
// answer's text as the model's tokenizer reads it (nil when unknown).
func (p exactPrompt) answerTokens(content string) []int32 {
	if p.model == nil || content == "" {
		return nil
	}
	ids, err := p.model.TextTokens(content)
	if err != nil {
		return nil
	}
	return ids
}

// files is the client's model-files cache, made on first use.
func (o *Ollama) files() *ollamamodel.Cache {
	o.filesOnce.Do(func() {
		if o.modelFilesSet {
			o.filesCache = o.modelFiles
			return
		}
		o.filesCache = ollamamodel.NewCache(ollamamodel.ModelsDirs(o.getenv))
	})
	return o.filesCache
}

// servesFiles reports whether the server's model of that name is the one
// whose manifest has digest.
func (o *Ollama) servesFiles(ctx context.Context, name, digest string) bool {
	tags, err := o.tags(ctx)
	if err != nil {
		return isLoopback(o.base.Hostname())
	}
	return tags[model.ParseName(name).String()] == digest
}

// tags returns the server's model digests by full name, asking at most
// once per servedTTL (servedErrTTL after a failure), shared through the
// client's CountMemory.
func (o *Ollama) tags(ctx context.Context) (map[string]string, error) {
	d := o.memory.digestsOf(o.base.String())
	d.mu.Lock()
	defer d.mu.Unlock()
	ttl := servedTTL
	if d.err != nil {
		ttl = servedErrTTL
	}
	if !d.at.IsZero() && o.now().Sub(d.at) < ttl {
		return d.m, d.err
	}
	var list api.ListResponse
	f := o.exchange(ctx, "/api/tags", nil, false, func(raw []byte) *failure {
		if err := json.Unmarshal(raw, &list); err != nil {
			return &failure{kind: KindOther, msg: "unable to read the server's model list", err: err}
		}
		return nil
	})
	if f != nil && ctx.Err() != nil {
		// The caller gave up (a count bounded to a second): that says
		// nothing about the server, so nothing is remembered.
		return nil, ctx.Err()
	}
	d.at, d.m, d.err, d.names = o.now(), nil, nil, nil
	if f != nil {
		d.err = f.toError("", "", 1, 0)
		return nil, d.err
	}
	d.m = map[string]string{}
	for _, m := range list.Models {
		d.m[model.ParseName(m.Name).String()] = m.Digest
		d.names = append(d.names, m.Name)
	}
	sort.Strings(d.names)
	return d.m, nil
}

// installed lists the server's models through the same /api/tags answer
// counting remembers, so asking for both costs one request per expiry.
func (o *Ollama) installed(ctx context.Context) ([]string, error) {
	if _, err := o.tags(ctx); err != nil {
		return nil, err
	}
	d := o.memory.digestsOf(o.base.String())
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string{}, d.names...), nil
}

// forgetTags drops the remembered /api/tags answer (after a pull).
func (o *Ollama) forgetTags() {
	d := o.memory.digestsOf(o.base.String())
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = time.Time{}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
