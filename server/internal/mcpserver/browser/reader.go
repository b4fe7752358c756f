package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/icm-tool/icm/server/internal/llm"
)

// Defaults for Reader fields left zero.
const (
	DefaultChunkChars = 6000
	DefaultOverlap    = 300
	DefaultParallel   = 4
)

// Reader reads whole pages with a model: summarize and extract cut the
// page into chunks, map each chunk through the model (up to Parallel at
// once) and reduce the partial answers to one.
type Reader struct {
	Model llm.Client
	// ModelName is the model to call.
	ModelName string
	// ChunkChars is the size of one chunk; Overlap how much of the end of
	// a chunk is repeated at the start of the next.
	ChunkChars int
	Overlap    int
	// Parallel bounds the model calls in flight for one page.
	Parallel int
	// Temperature for every call; nil means 0.1, which keeps notes factual.
	Temperature *float64
	Log         *slog.Logger
}

// ErrNoModel is returned when summarize or extract is called without a
// model configured.
var ErrNoModel = errors.New("no model is configured for reading pages; start the browser server with --model (and --ollama when Ollama is not on OLLAMA_HOST)")

func (r *Reader) chunks(p *Page) []string {
	size, over := r.ChunkChars, r.Overlap
	if size <= 0 {
		size = DefaultChunkChars
	}
	if over <= 0 {
		over = DefaultOverlap
	}
	return Chunk(p.Markdown, size, over)
}

func (r *Reader) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r.Log
}

// chat makes one model call and returns the answer's text.
func (r *Reader) chat(ctx context.Context, system, user string, format json.RawMessage) (string, error) {
	if r.Model == nil || r.ModelName == "" {
		return "", ErrNoModel
	}
	temp := 0.1
	if r.Temperature != nil {
		temp = *r.Temperature
	}
	think := false
	resp, err := r.Model.Chat(ctx, llm.ChatRequest{
		Stage: "browser",
		Model: r.ModelName,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: system},
			{Role: llm.RoleUser, Content: user},
		},
		Format:  format,
		Think:   &think,
		Options: llm.Options{Temperature: &temp},
	})
	if err != nil {
		return "", err
	}
	if resp.Incomplete {
		return "", fmt.Errorf("the model's answer was cut off (done_reason %q); try a smaller --chunk-chars", resp.DoneReason)
	}
	return strings.TrimSpace(resp.Message.Content), nil
}

// each runs fn for 0..n-1 with at most Parallel calls at once and returns
// the errors by index. It stops starting new calls once ctx is done.
func (r *Reader) each(ctx context.Context, n int, fn func(ctx context.Context, i int) error) []error {
	limit := r.Parallel
	if limit <= 0 {
		limit = DefaultParallel
	}
	errs := make([]error, n)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < n; j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return errs
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(ctx, i)
		}(i)
	}
	wg.Wait()
	return errs
}

// firstErr returns how many errors there were and the first of them.
func firstErr(errs []error) (int, error) {
	var first error
	n := 0
	for _, e := range errs {
		if e != nil {
			n++
			if first == nil {
				first = e
			}
		}
	}
	return n, first
}

// Fingerprint names the settings that shape an answer (model, chunking),
// for cache keys.
func (r *Reader) Fingerprint() string {
	return fmt.Sprintf("%s/%d/%d", r.ModelName, r.ChunkChars, r.Overlap)
}
