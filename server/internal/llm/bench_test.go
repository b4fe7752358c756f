package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkChatOverhead measures the client's cost per call (counting,
// sizing, encoding, HTTP on loopback, decoding) against a server that
// answers at once with a canned reply; Show is cached after the first call.
func BenchmarkChatOverhead(b *testing.B) {
	show, _ := json.Marshal(showResponse("qwen3", 40960, 151936, 1024))
	done, _ := json.Marshal(doneChunk("A short answer of a few words.", "stop", 1500))
	var stream strings.Builder
	for _, w := range strings.Fields("A short answer of a few words.") {
		line, _ := json.Marshal(deltaChunk(w + " "))
		stream.Write(line)
		stream.WriteByte('\n')
	}
	stream.Write(done)
	stream.WriteByte('\n')
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/api/show":
			_, _ = w.Write(show)
		case strings.Contains(string(body), `"stream":true`):
			_, _ = w.Write([]byte(stream.String()))
		default:
			_, _ = w.Write(done)
		}
	}))
	defer srv.Close()
	o, err := NewOllama(WithPermit(testPermit), WithBaseURL(srv.URL), WithModel("qwen3"))
	if err != nil {
		b.Fatal(err)
	}
	// A stage-sized prompt: about 1,500 tokens of system and user text and two tools.
	msgs := []Message{
		{Role: RoleSystem, Content: strings.Repeat("Write only what the contract asks for, citing each source. ", 60)},
		{Role: RoleUser, Content: strings.Repeat("Summarise the inputs below into a scoped plan of sections. ", 60)},
	}
	tools := []Tool{
		{Name: "search", Description: "Search the web", Parameters: json.RawMessage(searchSchema)},
		{Name: "read", Description: "Read a page", Parameters: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`)},
	}
	for _, c := range []struct {
		name   string
		stream bool
	}{{"plain", false}, {"stream", true}} {
		b.Run(c.name, func(b *testing.B) {
			req := ChatRequest{Messages: msgs, Tools: tools}
			if c.stream {
				req.OnDelta = func(Delta) {}
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := o.Chat(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
