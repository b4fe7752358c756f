package llm

import (
	"context"
	"testing"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// TestDigestCheckRemembered: clients that share a CountMemory ask the
// server for its model digests once per expiry, not once per client or
// count (the language server makes a client per analysis); a server that
// serves other files than the local ones gets an estimate.
func TestDigestCheckRemembered(t *testing.T) {
	dir := t.TempDir()
	if err := realollama.LayOut(dir, "tiny", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{dir}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", Digest: f.Digest, ContextLength: 8192}}})
	other := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", ContextLength: 8192}}})
	files := ollamamodel.NewCache([]string{dir})
	mem := NewCountMemory()
	clock := newFakeTime()
	count := func(url string) tokens.Count {
		t.Helper()
		o := newTestClient(t, url, clock, WithModelFiles(files), WithCountMemory(mem))
		c, err := o.CountPrompt(context.Background(), tokenizeCall())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i := 0; i < 5; i++ {
		if c := count(srv.URL()); c.Method != tokens.Exact {
			t.Fatalf("count %d: %+v, want exact", i, c)
		}
	}
	if n := len(srv.RequestsTo("/api/tags")); n != 1 {
		t.Errorf("5 clients asked /api/tags %d times, want once", n)
	}
	_ = clock.Sleep(context.Background(), servedTTL+1)
	if c := count(srv.URL()); c.Method != tokens.Exact || len(srv.RequestsTo("/api/tags")) != 2 {
		t.Errorf("after the expiry: %+v, %d requests; want exact, asked again", c, len(srv.RequestsTo("/api/tags")))
	}
	for i := 0; i < 2; i++ {
		if c := count(other.URL()); c.Method != tokens.Estimated {
			t.Errorf("a server with other files: %+v, want an estimate", c)
		}
	}
	if n := len(other.RequestsTo("/api/tags")); n != 1 {
		t.Errorf("the other server was asked %d times, want once", n)
	}
}
