package ollamatest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// TestEmbed: /api/embed answers one vector per input, of the model's
// length, the same for the same text; Config.Embed chooses them; an
// unknown model is 404 as from Ollama.
func TestEmbed(t *testing.T) {
	ctx := context.Background()
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "embedder", EmbeddingLength: 12}}})
	res, err := srv.Client().Embed(ctx, &api.EmbedRequest{Model: "embedder", Input: []string{"bread rises", "bread rises", "a cold night"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Embeddings) != 3 || len(res.Embeddings[0]) != 12 || res.Model != "embedder" {
		t.Fatalf("%d vectors of %d, model %q", len(res.Embeddings), len(res.Embeddings[0]), res.Model)
	}
	if !equal(res.Embeddings[0], res.Embeddings[1]) || equal(res.Embeddings[0], res.Embeddings[2]) {
		t.Errorf("vectors are not a function of the text: %v", res.Embeddings)
	}
	one, err := srv.Client().Embed(ctx, &api.EmbedRequest{Model: "embedder", Input: "bread rises"})
	if err != nil || len(one.Embeddings) != 1 || !equal(one.Embeddings[0], res.Embeddings[0]) {
		t.Errorf("one string: %v %v", one, err)
	}
	if srv.EmbeddedTexts() != 4 {
		t.Errorf("%d texts embedded, want 4", srv.EmbeddedTexts())
	}
	if _, err := srv.Client().Embed(ctx, &api.EmbedRequest{Model: "absent", Input: "x"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown model: %v", err)
	}

	set := ollamatest.New(t, ollamatest.Config{Embed: func(text string) []float32 { return []float32{float32(len(text)), 1} }})
	res, err = set.Client().Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: []string{"abc"}})
	if err != nil || len(res.Embeddings) != 1 || !equal(res.Embeddings[0], []float32{3, 1}) {
		t.Errorf("Config.Embed: %v %v", res, err)
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
