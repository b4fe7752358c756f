package llm

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// The embedder asks /api/embed for one vector per text, in order.
func TestEmbedderAsksTheEmbeddingsEndpoint(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "nomic-embed-text", EmbeddingLength: 24}}})
	e, err := NewEmbedder(config.Model{BaseURL: srv.URL()}, "nomic-embed-text", func(string) string { return "" }, WithPermit(testPermit))
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "nomic-embed-text" {
		t.Errorf("model %q", e.Model())
	}
	vs, err := e.Embed(context.Background(), []string{"one", "two", "one"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || len(vs[0]) != 24 || cosineOf(vs[0], vs[2]) < 0.999 {
		t.Fatalf("%d vectors: %v", len(vs), vs)
	}
	if srv.EmbeddedTexts() != 3 {
		t.Errorf("%d texts embedded", srv.EmbeddedTexts())
	}
}

// A model the server lacks is an error that names it and says to pull it.
func TestEmbedderMissingModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{})
	e, err := NewEmbedder(config.Model{BaseURL: srv.URL()}, "absent-embed", func(string) string { return "" }, WithPermit(testPermit))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindModelMissing || !strings.Contains(le.Hint, "ollama pull absent-embed") {
		t.Errorf("err = %#v", err)
	}
}

// Refused by its permit (an untrusted workspace's server), the embedder
// contacts nothing; and an OpenAI-compatible server is not asked.
func TestEmbedderPermitAndProvider(t *testing.T) {
	url, n := counter(t)
	var asked []act.Action
	e, err := NewEmbedder(config.Model{BaseURL: url}, "m", func(string) string { return "" }, WithPermit(refuseAndRecord(&asked)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); fault.KindOf(err) != fault.KindUntrusted {
		t.Errorf("err = %v, want the permit's refusal", err)
	}
	if n.Load() != 0 || len(asked) != 1 {
		t.Errorf("%d requests reached the server, permit asked %d times", n.Load(), len(asked))
	}
	if _, err := NewEmbedder(config.Model{Provider: "openai", BaseURL: url}, "m", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "embed_model") {
		t.Errorf("openai provider: %v", err)
	}
}

func cosineOf(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}
