package realollama

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
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

// CountChats serves a proxy to the server at target on loopback, for
// the test's life, and counts the chat requests that pass through it:
// point a client at the URL it returns.
func CountChats(t testing.TB, target string) (string, *ChatCounter) {
	t.Helper()
	c := &ChatCounter{}
	return Proxy(t, target, c), c
}

// Proxy serves a proxy to the server at target on loopback, for the
// test's life, sending every request through rt (which sends it on): a
// test watches what reaches the server by pointing its client at the URL
// Proxy returns.
func Proxy(t testing.TB, target string, rt http.RoundTripper) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.Transport = rt
	p.FlushInterval = -1 // answers stream
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}
