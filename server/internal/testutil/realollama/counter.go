package realollama

import (
	"net/http"
	"sync/atomic"
)

// ChatCounter is an http.RoundTripper that counts the chat requests
// passing through it, for tests that assert how many calls reached the
// server (none, with a cache).
type ChatCounter struct{ n atomic.Int64 }

// RoundTrip counts a request to /api/chat and sends it on.
func (c *ChatCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/api/chat" {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Chats is how many chat requests went through.
func (c *ChatCounter) Chats() int64 { return c.n.Load() }
