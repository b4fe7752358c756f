package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loopbackOnly is the tests' own connect-time guard: whatever the policy
// under test decides, nothing may leave the machine.
func loopbackOnly(ap netip.AddrPort) error {
	if !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("test guard: %s is not loopback", ap)
	}
	return nil
}

// counter is a local server that counts the requests it gets.
type counter struct {
	*httptest.Server
	hits atomic.Int64
}

func newCounter(t *testing.T, h http.HandlerFunc) *counter {
	t.Helper()
	c := &counter{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *counter) port() string {
	u, _ := url.Parse(c.URL)
	return u.Port()
}

func (c *counter) hostPort() string {
	u, _ := url.Parse(c.URL)
	return u.Host
}

func newFetcher(t *testing.T, opts Options) *Fetcher {
	t.Helper()
	opts.Guard = loopbackOnly
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<p>hello</p>")
}

func TestFetchRefusesSchemes(t *testing.T) {
	f := newFetcher(t, Options{})
	for _, raw := range []string{
		"file:///etc/passwd",
		"ftp://example.com/x",
		"gopher://example.com/",
		"data:text/html,<p>x</p>",
		"javascript:alert(1)",
		"example.com/page",
		"http:///nohost",
	} {
		t.Run(raw, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), raw)
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Fetch(%q) = %v, want *URLError", raw, err)
			}
		})
	}
}

func TestFetchRefusesNonPublicAddresses(t *testing.T) {
	target := newCounter(t, hello)
	p := target.port()
	f := newFetcher(t, Options{})
	for _, raw := range []string{
		"http://127.0.0.1:" + p + "/",
		"http://127.1:" + p + "/",
		"http://2130706433:" + p + "/",
		"http://0x7f000001:" + p + "/",
		"http://0177.0.0.1:" + p + "/",
		"http://[::1]:" + p + "/",
		"http://[::ffff:127.0.0.1]:" + p + "/",
		"http://[::ffff:7f00:1]:" + p + "/",
		"http://localhost:" + p + "/",
		"http://LOCALHOST.:" + p + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://0.0.0.0:" + p + "/",
		"http://10.1.2.3/",
		"http://172.16.0.1/",
		"http://192.168.0.1/",
		"http://100.64.0.1/",
		"http://[fe80::1]/",
		"http://[fc00::1]/",
		"http://[::]/",
		"http://user:pw@127.0.0.1:" + p + "/",
	} {
		t.Run(raw, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), raw)
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("Fetch(%q) = %v, want *BlockedError", raw, err)
			}
			if !strings.Contains(be.Error(), "--allow-host") {
				t.Errorf("message %q does not say how to allow a host", be.Error())
			}
		})
	}
	if n := target.hits.Load(); n != 0 {
		t.Fatalf("target server logged %d requests, want 0", n)
	}
}

func TestFetchAllowList(t *testing.T) {
	target := newCounter(t, hello)
	other := newCounter(t, hello)
	tests := []struct {
		name  string
		allow []string
		url   string
		ok    bool
	}{
		{"exact ip:port", []string{target.hostPort()}, target.URL, true},
		{"ip any port", []string{"127.0.0.1"}, target.URL, true},
		{"prefix", []string{"127.0.0.0/8"}, target.URL, true},
		{"legacy spelling of an allowed ip", []string{target.hostPort()}, "http://127.1:" + target.port() + "/", true},
		{"other port of an allowed ip:port", []string{target.hostPort()}, other.URL, false},
		{"host name entry does not allow the ip", []string{"docs.internal"}, target.URL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFetcher(t, Options{Allow: tt.allow})
			resp, err := f.Fetch(t.Context(), tt.url)
			if tt.ok {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if string(resp.Body) != "<p>hello</p>" {
					t.Fatalf("body = %q", resp.Body)
				}
				return
			}
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("Fetch = %v, want *BlockedError", err)
			}
		})
	}
	if n := other.hits.Load(); n != 0 {
		t.Fatalf("server not on the allow-list logged %d requests", n)
	}
}

func TestFetchRedirectToBlockedHost(t *testing.T) {
	target := newCounter(t, hello)
	for _, to := range []string{
		target.URL + "/secret",
		"http://localhost:" + target.port() + "/",
		"http://2130706433:" + target.port() + "/",
		"http://[::ffff:127.0.0.1]:" + target.port() + "/",
		"file:///etc/passwd",
	} {
		t.Run(to, func(t *testing.T) {
			allowed := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, to, http.StatusFound)
			})
			f := newFetcher(t, Options{Allow: []string{allowed.hostPort()}})
			_, err := f.Fetch(t.Context(), allowed.URL)
			var be *BlockedError
			var ue *URLError
			if !errors.As(err, &be) && !errors.As(err, &ue) {
				t.Fatalf("Fetch = %v, want a refusal", err)
			}
			if allowed.hits.Load() != 1 {
				t.Fatalf("allowed server hits = %d, want 1", allowed.hits.Load())
			}
		})
	}
	if n := target.hits.Load(); n != 0 {
		t.Fatalf("blocked target logged %d requests, want 0", n)
	}
}

func TestFetchRedirectCap(t *testing.T) {
	var srv *counter
	srv = newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("/hop%d", srv.hits.Load()), http.StatusFound)
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, MaxRedirects: 3})
	_, err := f.Fetch(t.Context(), srv.URL)
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("Fetch = %v, want *RedirectError", err)
	}
	if n := srv.hits.Load(); n != 4 {
		t.Fatalf("server saw %d requests, want 4 (the first and 3 hops)", n)
	}
}

func TestFetchFollowsAllowedRedirect(t *testing.T) {
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		hello(w, r)
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}})
	resp, err := f.Fetch(t.Context(), srv.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(resp.URL, "/new") || resp.Redirects != 1 {
		t.Fatalf("URL = %s, redirects = %d", resp.URL, resp.Redirects)
	}
}

// flipResolver answers a public address the first time and loopback after,
// like a rebinding DNS server with a zero TTL.
type flipResolver struct {
	mu    sync.Mutex
	calls int
}

func (r *flipResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func TestFetchDNSFlipToLoopback(t *testing.T) {
	target := newCounter(t, hello)
	res := &flipResolver{}
	f := newFetcher(t, Options{Resolver: res})
	_, err := f.Fetch(t.Context(), "http://rebind.example:"+target.port()+"/")
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("Fetch = %v, want *BlockedError", err)
	}
	if !be.Addr.Addr().IsLoopback() {
		t.Fatalf("blocked %s, want the loopback answer", be.Addr)
	}
	if res.calls < 2 {
		t.Fatalf("resolver called %d times; the connect-time lookup never happened", res.calls)
	}
	if n := target.hits.Load(); n != 0 {
		t.Fatalf("target logged %d requests, want 0", n)
	}
}

func TestFetchStopsHugeStream(t *testing.T) {
	var written atomic.Int64
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		buf := bytes.Repeat([]byte("a"), 64<<10)
		for i := 0; i < (1<<30)/len(buf); i++ {
			n, err := w.Write(buf)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, MaxBytes: 1 << 20})
	_, err := f.Fetch(t.Context(), srv.URL)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("Fetch = %v, want *TooLargeError", err)
	}
	srv.CloseClientConnections()
	if n := written.Load(); n >= 1<<30 {
		t.Fatalf("server wrote the whole %d bytes", n)
	}
}

func TestFetchRefusesLargeContentLength(t *testing.T) {
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(10<<20))
		w.WriteHeader(200)
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, MaxBytes: 1 << 20})
	_, err := f.Fetch(t.Context(), srv.URL)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("Fetch = %v, want *TooLargeError", err)
	}
}

// gzipBomb is a gzip stream that inflates to n MiB of zeros: one member
// compressing 1 MiB, repeated (readers inflate concatenated members).
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var one bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return bytes.Repeat(one.Bytes(), n)
}

func TestFetchStopsGzipBomb(t *testing.T) {
	bomb := gzipBomb(t, 1024) // 1 GiB inflated, about 1 MiB on the wire
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, MaxBytes: 2 << 20, MaxWireBytes: 4 << 20})
	_, err := f.Fetch(t.Context(), srv.URL)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("Fetch = %v, want *TooLargeError", err)
	}
	if tl.Limit != 2<<20 {
		t.Fatalf("stopped by the %d-byte limit, want the inflated-size limit", tl.Limit)
	}
}

func TestFetchInflatesGzip(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("<p>packed</p>"))
	zw.Close()
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding = %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(z.Bytes())
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}})
	resp, err := f.Fetch(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "<p>packed</p>" {
		t.Fatalf("body = %q", resp.Body)
	}
}

func TestFetchDripHitsTotalTimeout(t *testing.T) {
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		tick := time.NewTicker(time.Second) // one byte a second
		defer tick.Stop()
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, Timeout: 2 * time.Second, IdleTimeout: 5 * time.Second})
	_, err := f.Fetch(t.Context(), srv.URL)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "total" {
		t.Fatalf("Fetch = %v, want a total timeout", err)
	}
}

func TestFetchStallHitsIdleTimeout(t *testing.T) {
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}, Timeout: time.Minute, IdleTimeout: 300 * time.Millisecond})
	_, err := f.Fetch(t.Context(), srv.URL)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "idle" {
		t.Fatalf("Fetch = %v, want an idle timeout", err)
	}
}

func TestFetchStatusError(t *testing.T) {
	srv := newCounter(t, http.NotFound)
	f := newFetcher(t, Options{Allow: []string{srv.hostPort()}})
	_, err := f.Fetch(t.Context(), srv.URL)
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 404 {
		t.Fatalf("Fetch = %v, want HTTP 404", err)
	}
}

func TestFetchIgnoresProxyEnvironment(t *testing.T) {
	proxy := newCounter(t, hello)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	target := newCounter(t, hello)
	f := newFetcher(t, Options{Allow: []string{target.hostPort()}})
	if _, err := f.Fetch(t.Context(), target.URL); err != nil {
		t.Fatal(err)
	}
	if proxy.hits.Load() != 0 || target.hits.Load() != 1 {
		t.Fatalf("proxy hits %d, target hits %d; the fetch went through the proxy", proxy.hits.Load(), target.hits.Load())
	}
}

func TestDialerGuardRunsAtConnect(t *testing.T) {
	target := newCounter(t, hello)
	pol, err := NewPolicy([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused by guard")
	d := &Dialer{Policy: pol, Guard: func(netip.AddrPort) error { return refused }}
	_, err = d.DialContext(t.Context(), "tcp", target.hostPort())
	if !errors.Is(err, refused) {
		t.Fatalf("DialContext = %v, want the guard's refusal", err)
	}
}
