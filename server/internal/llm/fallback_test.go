package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func TestFallback(t *testing.T) {
	cases := []struct {
		name   string
		models []ollamatest.Model
		turns  map[string]ollamatest.Turn
		list   []string
		// want is the model that answers ("" for an error of kind).
		want string
		kind Kind
		// asked counts the chat calls per model over two calls.
		asked map[string]int
	}{
		{name: "first missing", models: []ollamatest.Model{{Name: "b"}}, turns: map[string]ollamatest.Turn{"b": ollamatest.Text("from b")},
			list: []string{"a", "b"}, want: "b", asked: map[string]int{"b": 2}},
		{name: "first cannot load", models: []ollamatest.Model{{Name: "a"}, {Name: "b"}},
			turns: map[string]ollamatest.Turn{"a": ollamatest.Fail(500, "model requires more system memory"), "b": ollamatest.Text("from b")},
			list:  []string{"a", "b"}, want: "b", asked: map[string]int{"a": 1, "b": 2}},
		{name: "first works", models: []ollamatest.Model{{Name: "a"}, {Name: "b"}}, turns: map[string]ollamatest.Turn{"a": ollamatest.Text("from a")},
			list: []string{"a", "b"}, want: "a", asked: map[string]int{"a": 2}},
		{name: "server busy is not the model's fault", models: []ollamatest.Model{{Name: "a"}, {Name: "b"}}, turns: map[string]ollamatest.Turn{"a": ollamatest.Fail(503, "")},
			list: []string{"a", "b"}, kind: KindUnavailable, asked: map[string]int{"a": 2}},
		{name: "all missing", models: []ollamatest.Model{{Name: "c"}}, list: []string{"a", "b"}, kind: KindModelMissing, asked: map[string]int{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Config{Models: tc.models, AllowUnscripted: true})
			srv.DefaultFunc(func(r *ollamatest.Request) ollamatest.Turn { return tc.turns[r.Model] })
			inner, err := NewOllama(WithPermit(testPermit), WithBaseURL(srv.URL()), WithRetry(0, 1))
			if err != nil {
				t.Fatal(err)
			}
			c := Fallback(inner, tc.list[1:]...)
			for i := 0; i < 2; i++ {
				var restarted bool
				resp, err := c.Chat(context.Background(), ChatRequest{Model: tc.list[0], Messages: userMsg("hi"), OnDelta: func(d Delta) { restarted = restarted || d.Restart }})
				if tc.want == "" {
					if KindOf(err) != tc.kind {
						t.Fatalf("call %d: kind %v (%v), want %v", i, KindOf(err), err, tc.kind)
					}
					continue
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if resp.Model != tc.want || !strings.HasPrefix(resp.Message.Content, "from "+tc.want) {
					t.Errorf("call %d answered by %s: %q", i, resp.Model, resp.Message.Content)
				}
			}
			got := map[string]int{}
			for _, r := range srv.ChatRequests() {
				got[r.Model]++
			}
			for m, n := range tc.asked {
				if got[m] != n {
					t.Errorf("model %s asked %d times, want %d (all: %v)", m, got[m], n, got)
				}
			}
		})
	}
	if c := Fallback(nil); c != nil {
		t.Error("Fallback with no models must return the client itself")
	}
}
