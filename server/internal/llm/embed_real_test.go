package llm

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// TestRealOllamaEmbeds: the real server's /api/embed takes the request as
// the Embedder sends it (a list of texts) and answers one vector per
// text, of the model's width (its <arch>.embedding_length). The tiny
// model's weights are random: only the plumbing is checked here, never
// how alike two texts come out.
func TestRealOllamaEmbeds(t *testing.T) {
	srv := realollama.Start(t, realollama.Options{})
	ctx := context.Background()
	o, err := NewOllama(WithPermit(testPermit), WithBaseURL(srv.URL), WithGetenv(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	width := embeddingLength(ctx, t, o, srv.Model)
	e, err := NewEmbedder(config.Model{BaseURL: srv.URL}, srv.Model, func(string) string { return "" }, WithPermit(testPermit))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"The loaf rises in the fridge overnight.", "Bake it in a lidded pot.", "A third, short one."}
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != width {
			t.Errorf("vector %d has %d dimensions, want the model's %d", i, len(v), width)
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n == 0 || math.IsNaN(n) {
			t.Errorf("vector %d is empty or not a number: norm² %v", i, n)
		}
	}
	if _, err := e.Embed(ctx, nil); err != nil {
		t.Errorf("no texts: %v", err)
	}
}

// embeddingLength reads <arch>.embedding_length from the server's
// /api/show, the width its vectors must have.
func embeddingLength(ctx context.Context, t *testing.T, o *Ollama, model string) int {
	t.Helper()
	body, err := json.Marshal(api.ShowRequest{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	var sr api.ShowResponse
	if f := o.exchange(ctx, "/api/show", body, false, func(raw []byte) *failure {
		if err := json.Unmarshal(raw, &sr); err != nil {
			return &failure{kind: KindOther, msg: "unreadable show", err: err}
		}
		return nil
	}); f != nil {
		t.Fatal(f.msg)
	}
	arch, _ := sr.ModelInfo["general.architecture"].(string)
	n, ok := sr.ModelInfo[arch+".embedding_length"].(float64)
	if !ok || n <= 0 {
		t.Fatalf("the server's show has no %s.embedding_length: %v", arch, sr.ModelInfo)
	}
	return int(n)
}
