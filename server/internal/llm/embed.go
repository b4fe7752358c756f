package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/config"
)

// Embedder asks an Ollama server's embeddings endpoint (/api/embed) for
// the vectors of texts with one model: what evidence's semantic score
// uses ([evidence] embed_model). Its requests go through the client's
// permit like every other request.
type Embedder struct {
	o     *Ollama
	model string
}

// Embedder retries briefly: evidence must not wait long for a server
// that is not there, and it says so in a note instead.
const (
	embedRetryBudget = 5 * time.Second
	embedAttempts    = 2
)

// NewEmbedder returns the embedder of model on the Ollama server a
// workspace's [model] section names (base_url, else the first of
// [[model.servers]], else OLLAMA_HOST through getenv); opts come last
// (the permit, the editor's host). An OpenAI-compatible server has no
// /api/embed: that is an error saying so.
func NewEmbedder(m config.Model, model string, getenv func(string) string, opts ...Option) (*Embedder, error) {
	if p := strings.ToLower(strings.TrimSpace(m.Provider)); p != "" && p != ProviderOllama {
		return nil, badSetting("remove [evidence] embed_model, or use an Ollama server", "[evidence] embed_model = %q needs an Ollama server's /api/embed, and [model] provider is %q", model, m.Provider)
	}
	base := m.BaseURL
	if base == "" && len(m.Servers) > 0 {
		base = m.Servers[0].URL
	}
	o := []Option{WithGetenv(getenv), WithBaseURL(base), WithRetry(embedRetryBudget, embedAttempts)}
	c, err := NewOllama(append(o, opts...)...)
	if err != nil {
		return nil, err
	}
	return &Embedder{o: c, model: model}, nil
}

// Model names the embedding model.
func (e *Embedder) Model() string { return e.model }

// Embed returns one vector per text, in order, in one request.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(api.EmbedRequest{Model: e.model, Input: texts})
	if err != nil {
		return nil, &Error{Kind: KindOther, Model: e.model, Msg: "unable to encode the embed request", Err: err}
	}
	var res api.EmbedResponse
	r := e.o.newRetrier()
	f := r.run(ctx, func() *failure {
		return e.o.exchange(ctx, "/api/embed", body, false, func(raw []byte) *failure {
			if err := json.Unmarshal(raw, &res); err != nil {
				return &failure{kind: KindOther, msg: "unable to read the server's vectors", err: err}
			}
			return nil
		})
	})
	if f != nil {
		return nil, f.toError("", e.model, r.attempts, r.elapsed())
	}
	if len(res.Embeddings) != len(texts) {
		return nil, &Error{Kind: KindOther, Model: e.model, Msg: fmt.Sprintf("the server returned %d vectors for %d texts", len(res.Embeddings), len(texts))}
	}
	return res.Embeddings, nil
}
