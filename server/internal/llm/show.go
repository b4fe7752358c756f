package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
)

// modelCache remembers, per model, what /api/show said and the largest
// window a call has used (see window.go). A failed show is not cached, so
// pulling the model and trying again works.
type modelCache struct {
	mu sync.Mutex
	m  map[string]*modelEntry
}

type modelEntry struct {
	// fetch serialises /api/show calls for the model, so concurrent first
	// calls make one request; a channel so that waiting honours ctx.
	fetch  chan struct{}
	info   *ModelInfo
	window int
}

func newModelCache() *modelCache { return &modelCache{m: map[string]*modelEntry{}} }

func (c *modelCache) entry(model string) *modelEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[model]
	if !ok {
		e = &modelEntry{fetch: make(chan struct{}, 1)}
		c.m[model] = e
	}
	return e
}

func (c *modelCache) info(e *modelEntry) *ModelInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.info
}

func (c *modelCache) setInfo(e *modelEntry, info *ModelInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.info = info
}

// show is what every backend's Show does around asking its server: it
// picks the model (the given one, else def), lets one caller per model ask
// at a time (waiting honours ctx), answers from the cache when a call has
// already succeeded, and caches fetch's answer. A failure is not cached.
func (c *modelCache) show(ctx context.Context, model, def string, fetch func(model string) (*ModelInfo, error)) (*ModelInfo, error) {
	if model == "" {
		model = def
	}
	if model == "" {
		return nil, &Error{Kind: KindBadRequest, Msg: "no model named", Hint: "set [model] name in config.toml"}
	}
	e := c.entry(model)
	select {
	case e.fetch <- struct{}{}:
	case <-ctx.Done():
		return nil, &Error{Kind: KindOther, Model: model, Msg: "the call was cancelled", Err: ctx.Err()}
	}
	defer func() { <-e.fetch }()
	if info := c.info(e); info != nil {
		return info.clone(), nil
	}
	info, err := fetch(model)
	if err != nil {
		return nil, err
	}
	c.setInfo(e, info)
	return info.clone(), nil
}

// window returns the largest window used so far for the model.
func (c *modelCache) window(model string) int {
	e := c.entry(model)
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.window
}

// raiseWindow records that a call for the model used window w.
func (c *modelCache) raiseWindow(model string, w int) {
	e := c.entry(model)
	c.mu.Lock()
	defer c.mu.Unlock()
	e.window = max(e.window, w)
}

// forget drops what is known about the model (after a pull replaced it).
func (c *modelCache) forget(model string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, model)
}

// Show returns what the server says about model, asking once per model
// for the life of the client.
func (o *Ollama) Show(ctx context.Context, model string) (*ModelInfo, error) {
	return o.models.show(ctx, model, o.model, func(model string) (*ModelInfo, error) {
		body, err := json.Marshal(api.ShowRequest{Model: model})
		if err != nil {
			return nil, &Error{Kind: KindOther, Model: model, Msg: "unable to encode the show request", Err: err}
		}
		var sr api.ShowResponse
		r := o.newRetrier()
		f := r.run(ctx, func() *failure {
			return o.exchange(ctx, "/api/show", body, false, func(raw []byte) *failure {
				if err := json.Unmarshal(raw, &sr); err != nil {
					return &failure{kind: KindOther, msg: "unable to read the server's model details", err: err}
				}
				return nil
			})
		})
		if f != nil {
			e := f.toError("", model, r.attempts, r.elapsed())
			explainMissing(ctx, e, fmt.Sprintf("%s at %s", o.dialect.server, o.base), o.Models, true)
			return nil, e
		}
		return modelInfoFrom(model, &sr), nil
	})
}

func (m *ModelInfo) clone() *ModelInfo {
	c := *m
	c.Capabilities = slices.Clone(m.Capabilities)
	return &c
}

// Byte-level vocabularies hold the 256 byte values plus a few special
// tokens; anything this small tokenises one token per byte.
const (
	byteVocabMin = 256
	byteVocabMax = 512
)

// modelInfoFrom reads the parts of /api/show that icm uses. The context
// length is model_info["<arch>.context_length"]. /api/show leaves
// tokenizer arrays empty unless asked for everything (megabytes for a
// real model), so the vocabulary size comes from "<arch>.vocab_size" or
// the token embedding tensor's shape, which it always lists.
func modelInfoFrom(name string, sr *api.ShowResponse) *ModelInfo {
	arch, _ := sr.ModelInfo["general.architecture"].(string)
	info := &ModelInfo{Name: name, Family: sr.Details.Family}
	if info.Family == "" {
		info.Family = arch
	}
	info.ContextLength = intOf(sr.ModelInfo[arch+".context_length"])
	if info.ContextLength == 0 {
		for k, v := range sr.ModelInfo {
			if strings.HasSuffix(k, ".context_length") {
				info.ContextLength = max(info.ContextLength, intOf(v))
			}
		}
	}
	vocab := intOf(sr.ModelInfo[arch+".vocab_size"])
	if vocab == 0 {
		embed := intOf(sr.ModelInfo[arch+".embedding_length"])
		for _, t := range sr.Tensors {
			if t.Name != "token_embd.weight" || len(t.Shape) != 2 {
				continue
			}
			// GGUF lists ne[0] first: [embedding width, vocabulary].
			vocab = int(t.Shape[1])
			if embed > 0 && vocab == embed {
				vocab = int(t.Shape[0])
			}
		}
	}
	info.ByteLevel = vocab >= byteVocabMin && vocab < byteVocabMax
	for _, c := range sr.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	return info
}

// intOf reads a JSON number (float64 after decoding) as an int.
func intOf(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// describe names the model's window for messages.
func (m *ModelInfo) describe() string {
	if m.ContextLength == 0 {
		return fmt.Sprintf("%s (context length unknown)", m.Name)
	}
	return fmt.Sprintf("%s (context length %d)", m.Name, m.ContextLength)
}
