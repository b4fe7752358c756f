package evidence

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// conceptEmbedder is a stand-in for an embedding model: it knows which
// words share a meaning, and puts each text on one axis per meaning.
type conceptEmbedder struct {
	calls int
	short bool
}

var concepts = map[string]int{
	"fridge": 0, "refrigerator": 0, "chill": 0, "cold": 0,
	"overnight": 1, "night": 1,
	"sour": 2, "tangy": 2, "tang": 2,
	"loaf": 3, "bread": 3,
}

func (e *conceptEmbedder) Model() string { return "concepts" }

func (e *conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, 8)
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if c, ok := concepts[w]; ok {
				v[c]++
			}
		}
		v[7] = 0.1
		out[i] = v
	}
	if e.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

const semanticSource = "Proving: the shaped loaf can rise in the fridge overnight, which deepens the sour flavour.\n\nBake in a lidded pot until the crust is deep brown.\n"

// A paraphrase no lexical method can match: every content word changed.
const semanticOutput = "A refrigerator through the night makes bread tangy.\n"

func TestSemanticScoreJoinsTheLexicalOne(t *testing.T) {
	in := Input{Text: []byte(semanticOutput), Sources: []Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}}
	lexical := Compute(context.Background(), in, Options{})
	if u := lexical.Units[0]; u.Status != Unsupported || u.Semantic != nil {
		t.Fatalf("lexically: %+v", u)
	}
	e := &conceptEmbedder{}
	res := Compute(context.Background(), in, Options{Embedder: e})
	u := res.Units[0]
	if u.Semantic == nil || *u.Semantic < 0.9 || u.Status != Supported {
		t.Fatalf("with the embedding model: %+v", u)
	}
	if want := round(*u.Semantic * DefaultThreshold / DefaultSemanticThreshold); u.Lexical >= u.Score || math.Abs(u.Score-min(1, want)) > 0.002 {
		t.Errorf("score %v (lexical %v), want the semantic score at the lexical scale: %v", u.Score, u.Lexical, want)
	}
	if len(u.Support) == 0 || u.Support[0].Semantic == nil || !strings.HasPrefix(u.Support[0].Text, "Proving") {
		t.Errorf("the passage most alike is listed with its similarity: %+v", u.Support)
	}
	if res.Method != "lexical+semantic (concepts)" || res.Threshold != DefaultThreshold || res.SemanticThreshold != DefaultSemanticThreshold {
		t.Errorf("method %q thresholds %v %v", res.Method, res.Threshold, res.SemanticThreshold)
	}
	if e.calls != 1 {
		t.Errorf("%d calls to the model for 3 texts, want one batch", e.calls)
	}
}

// A unit's support is the better of its two scores: a unit the sources
// hold word for word stays supported, at its lexical score, whatever the
// vectors say; only the units the lexical score leaves unsupported are
// embedded.
func TestSemanticScoreIsTheBetterOfTheTwo(t *testing.T) {
	copied := "The shaped loaf can rise in the fridge overnight, which deepens the sour flavour.\n"
	in := Input{Text: []byte(copied), Sources: []Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}}
	e := &orthogonalEmbedder{}
	res := Compute(context.Background(), in, Options{Embedder: e})
	u := res.Units[0]
	if u.Status != Supported || u.Score != u.Lexical || u.Lexical < DefaultThreshold {
		t.Errorf("a copied unit: %+v", u)
	}
	if e.texts != 0 {
		t.Errorf("%d texts embedded for a unit the lexical score supports", e.texts)
	}
}

// orthogonalEmbedder gives every text its own axis: nothing is alike.
type orthogonalEmbedder struct{ texts int }

func (e *orthogonalEmbedder) Model() string { return "orthogonal" }

func (e *orthogonalEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = make([]float32, 64)
		out[i][(e.texts+i)%64] = 1
	}
	e.texts += len(texts)
	return out, nil
}

func TestSemanticFailuresLeaveLexicalScores(t *testing.T) {
	in := Input{Text: []byte(semanticOutput), Sources: []Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}}
	for _, e := range []Embedder{failingEmbedder{}, &conceptEmbedder{short: true}} {
		res := Compute(context.Background(), in, Options{Embedder: e})
		if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], e.Model()) || res.Units[0].Semantic != nil || res.Method != "lexical" {
			t.Errorf("%s: notes %q, unit %+v", e.Model(), res.Notes, res.Units[0])
		}
	}
}

func TestSemanticBound(t *testing.T) {
	text := strings.Repeat(semanticOutput+"\n", 5)
	res := Compute(context.Background(), Input{Text: []byte(text), Sources: []Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}}, Options{Embedder: &conceptEmbedder{}, MaxEmbedTexts: 4})
	with := 0
	for _, u := range res.Units {
		if u.Semantic != nil {
			with++
		}
	}
	if with != 2 || !res.Partial || !strings.Contains(strings.Join(res.Limits, ";"), "semantic score") {
		t.Errorf("%d units with a semantic score, partial %v %q", with, res.Partial, res.Limits)
	}
}

func TestCosine(t *testing.T) {
	if v := cosine([]float32{1, 0}, []float32{1, 0}); v != 1 {
		t.Errorf("same direction: %v", v)
	}
	if v := cosine([]float32{1, 0}, []float32{-1, 0}); v != 0 {
		t.Errorf("opposite directions support nothing: %v", v)
	}
	if v := cosine([]float32{1, 0}, []float32{1}); v != 0 {
		t.Errorf("vectors of different lengths: %v", v)
	}
}

type failingEmbedder struct{}

func (failingEmbedder) Model() string { return "broken-embed" }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("connection refused")
}
