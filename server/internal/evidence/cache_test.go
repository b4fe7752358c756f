package evidence

import (
	"context"
	"sync"
	"testing"
)

func TestCacheKeepsWholeResults(t *testing.T) {
	c := NewCache(2)
	in := Input{Path: "out.md", Text: []byte(boundOutput), Sources: boundSources}
	first := c.Compute(context.Background(), in, Options{})
	if first.Cached || c.Len() != 1 {
		t.Fatalf("first computation: cached %v, len %d", first.Cached, c.Len())
	}
	again := c.Compute(context.Background(), in, Options{MaxTime: DefaultMaxTime * 2})
	if !again.Cached || again.Summary != first.Summary || len(again.Units) != len(first.Units) {
		t.Errorf("asked again (another time bound only): cached %v, summary %q", again.Cached, again.Summary.Text)
	}
	if first.Cached {
		t.Error("a cached copy changed the result first returned")
	}
	// Another source text, another threshold: other computations.
	changed := append([]Source(nil), boundSources...)
	changed[1].Text = []byte("Something else entirely.\n")
	if r := c.Compute(context.Background(), Input{Path: "out.md", Text: []byte(boundOutput), Sources: changed}, Options{}); r.Cached {
		t.Error("a changed source gave the cached result")
	}
	if r := c.Compute(context.Background(), in, Options{Threshold: 0.9}); r.Cached {
		t.Error("another threshold gave the cached result")
	}
	// The cache holds two: the first computation was used least recently.
	if c.Len() != 2 {
		t.Errorf("len %d, want 2", c.Len())
	}
	if r := c.Compute(context.Background(), in, Options{}); r.Cached {
		t.Error("the least recently used result was not forgotten")
	}
}

func TestCacheSkipsPartialAndFailedResults(t *testing.T) {
	c := NewCache(4)
	in := Input{Text: []byte(boundOutput), Sources: boundSources}
	for i := 0; i < 2; i++ {
		if r := c.Compute(context.Background(), in, Options{MaxUnits: 1}); r.Cached || !r.Partial {
			t.Errorf("partial result %d: cached %v partial %v", i, r.Cached, r.Partial)
		}
		// A unit the lexical score leaves unsupported asks the model.
		paraphrased := Input{Text: []byte(semanticOutput), Sources: []Source{{Kind: SourceInput, Name: "brief.md", Text: []byte(semanticSource)}}}
		if r := c.Compute(context.Background(), paraphrased, Options{Embedder: failingEmbedder{}}); r.Cached || len(r.Notes) == 0 {
			t.Errorf("failed embedding %d: cached %v notes %q", i, r.Cached, r.Notes)
		}
	}
	if c.Len() != 0 {
		t.Errorf("len %d, want 0", c.Len())
	}
}

func TestCacheConcurrentUse(t *testing.T) {
	c := NewCache(3)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := Input{Path: string(rune('a' + i%4)), Text: []byte(boundOutput), Sources: boundSources}
			if r := c.Compute(context.Background(), in, Options{}); r.Summary.Supported != 4 {
				t.Errorf("summary %q", r.Summary.Text)
			}
		}()
	}
	wg.Wait()
	if c.Len() != 3 {
		t.Errorf("len %d, want 3", c.Len())
	}
}

func TestKeySeparatesFields(t *testing.T) {
	a := Key(Input{Sources: []Source{{Name: "ab", Text: []byte("c")}}}, Options{})
	b := Key(Input{Sources: []Source{{Name: "a", Text: []byte("bc")}}}, Options{})
	if a == b {
		t.Error("two different sources have one key")
	}
	if Key(Input{}, Options{}) != Key(Input{}, Options{Support: DefaultSupport}) {
		t.Error("a default spelled out changes the key")
	}
}
