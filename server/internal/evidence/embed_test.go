package evidence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/evidence"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// The recipe's source and an output that says the same in other words:
// no content word is shared, so the lexical method cannot see it.
const (
	recipe     = "Proving: the shaped loaf can rise in the fridge overnight, which deepens the sour flavour.\n\nBake in a lidded pot until the crust is deep brown.\n"
	paraphrase = "A refrigerator through the night makes bread tangy.\n"
	invented   = "Sprinkle sesame seeds before serving warm with butter.\n"
)

// meanings puts a text on one axis per meaning it speaks of, as an
// embedding model that knows these synonyms would.
var meanings = map[string]int{
	"fridge": 0, "refrigerator": 0, "overnight": 1, "night": 1,
	"sour": 2, "tangy": 2, "loaf": 3, "bread": 3,
	"bake": 4, "pot": 5, "crust": 6, "sesame": 7, "butter": 8,
}

func meaningVector(text string) []float32 {
	v := make([]float32, 10)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if i, ok := meanings[w]; ok {
			v[i]++
		}
	}
	v[9] = 0.1
	return v
}

var allow = act.PermitFunc(func(act.Action) error { return nil })

func embedder(t *testing.T, url, model string) evidence.Embedder {
	t.Helper()
	e, err := llm.NewEmbedder(config.Model{BaseURL: url}, model, func(string) string { return "" }, llm.WithPermit(allow))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func input(out string) evidence.Input {
	return evidence.Input{Path: "out.md", Text: []byte(out), Sources: []evidence.Source{{Kind: evidence.SourceInput, Name: "recipe.md", Text: []byte(recipe)}}}
}

// TestEmbeddingsSupportAParaphrase: through the model server's
// embeddings endpoint, the paraphrase the lexical method misses is
// supported by its semantic score, and the invention stays unsupported.
func TestEmbeddingsSupportAParaphrase(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "nomic-embed-text"}}, Embed: meaningVector})
	in := input(paraphrase + "\n" + invented)
	lexical := evidence.Compute(context.Background(), in, evidence.Options{})
	if lexical.Units[0].Status != evidence.Unsupported {
		t.Fatalf("the lexical method alone: %+v", lexical.Units[0])
	}
	res := evidence.Compute(context.Background(), in, evidence.Options{Embedder: embedder(t, srv.URL(), "nomic-embed-text")})
	p, inv := res.Units[0], res.Units[1]
	if p.Status != evidence.Supported || p.Semantic == nil || *p.Semantic < evidence.DefaultSemanticThreshold {
		t.Errorf("the paraphrase: %+v", p)
	}
	if inv.Status != evidence.Unsupported || inv.Semantic == nil || *inv.Semantic >= evidence.DefaultSemanticThreshold {
		t.Errorf("the invention: %+v", inv)
	}
	if len(res.Notes) != 0 || res.Method != "lexical+semantic (nomic-embed-text)" {
		t.Errorf("notes %q, method %q", res.Notes, res.Method)
	}
}

// TestEmbeddingFailuresLeaveTheLexicalResult: a model the server lacks,
// or no server at all, leaves the lexical result and a note saying what
// to check.
func TestEmbeddingFailuresLeaveTheLexicalResult(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Embed: meaningVector})
	down := ollamatest.New(t, ollamatest.Config{})
	downURL := down.URL()
	if err := down.Close(); err != nil {
		t.Fatal(err)
	}
	in := input(paraphrase)
	want := evidence.Compute(context.Background(), in, evidence.Options{})
	for name, url := range map[string]string{"model missing": srv.URL(), "server down": downURL} {
		res := evidence.Compute(context.Background(), in, evidence.Options{Embedder: embedder(t, url, "nomic-embed-text")})
		if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "nomic-embed-text") || !strings.Contains(res.Notes[0], "check that the model server is running and has this model") {
			t.Errorf("%s: notes %q", name, res.Notes)
		}
		u := res.Units[0]
		if res.Method != "lexical" || u.Semantic != nil || u.Status != want.Units[0].Status || u.Score != want.Units[0].Score {
			t.Errorf("%s: %q %+v, want the lexical %+v", name, res.Method, u, want.Units[0])
		}
	}
}

// TestCacheKeepsVectors: asking again about an edited output embeds only
// the text that changed; the sources' passages and the unchanged unit
// come from the cache.
func TestCacheKeepsVectors(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "nomic-embed-text"}}, Embed: meaningVector})
	e := embedder(t, srv.URL(), "nomic-embed-text")
	c := evidence.NewCache(4)
	first := c.Compute(context.Background(), input(paraphrase+"\n"+invented), evidence.Options{Embedder: e})
	asked := srv.EmbeddedTexts()
	if first.Method != "lexical+semantic (nomic-embed-text)" || asked != 2+2 {
		t.Fatalf("first: %q, %d texts embedded (want 2 units and the 2 sentences of the recipe)", first.Method, asked)
	}
	edited := c.Compute(context.Background(), input(paraphrase+"\n"+"Sprinkle poppy seeds before serving warm with butter.\n"), evidence.Options{Embedder: e})
	if edited.Cached || srv.EmbeddedTexts() != asked+1 {
		t.Errorf("after an edit of one unit %d more texts were embedded, want 1 (cached %v)", srv.EmbeddedTexts()-asked, edited.Cached)
	}
	if edited.Units[0].Status != evidence.Supported {
		t.Errorf("the paraphrase, from cached vectors: %+v", edited.Units[0])
	}
}
