package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
)

// BlockedHeader marks a proxy answer that refused a destination, so a
// browser driver can tell a refusal from the page's own error.
const BlockedHeader = "X-Icm-Blocked"

// Proxy is an HTTP forward proxy on 127.0.0.1 that makes every connection
// through a Dialer. A browser pointed at it (with loopback not bypassed)
// cannot reach an address the policy refuses, whatever its pages, scripts
// and redirects ask for.
type Proxy struct {
	dialer *Dialer
	ln     net.Listener
	srv    *http.Server
	tr     *act.RoundTripper

	mu      sync.Mutex
	blocked map[string]error // by host, the last refusal
	wg      sync.WaitGroup
}

// StartProxy listens on a free 127.0.0.1 port.
func StartProxy(d *Dialer) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("unable to start the browser's proxy: %w", err)
	}
	p := &Proxy{dialer: d, ln: ln, blocked: map[string]error{}}
	p.tr = act.Transport(own(), contact(), act.HTTP{Dial: d.DialContext, Tune: func(tr *http.Transport) {
		tr.Proxy = nil
		tr.ForceAttemptHTTP2 = false
		tr.ResponseHeaderTimeout = 30 * time.Second
		tr.MaxIdleConns = 16
		tr.IdleConnTimeout = 30 * time.Second
		tr.DisableCompression = true
	}})
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// Addr is the proxy's "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Blocked returns the last refusal for host, if any.
func (p *Proxy) Blocked(host string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.blocked[strings.ToLower(host)]
}

// Close stops the proxy and its tunnels.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	p.wg.Wait()
	return err
}

func (p *Proxy) refuse(w http.ResponseWriter, host string, err error) {
	p.mu.Lock()
	p.blocked[strings.ToLower(host)] = err
	p.mu.Unlock()
	w.Header().Set(BlockedHeader, err.Error())
	http.Error(w, err.Error(), http.StatusForbidden)
}

// ServeHTTP forwards one proxy request: CONNECT tunnels (https, wss) and
// absolute-URI http requests. Anything else is refused.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "only absolute http:// requests and CONNECT are proxied", http.StatusBadRequest)
		return
	}
	if r.Header.Get("Upgrade") != "" {
		http.Error(w, "protocol upgrades are not proxied", http.StatusForbidden)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Transfer-Encoding"} {
		out.Header.Del(h)
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		var be *BlockedError
		if errors.As(err, &be) {
			p.refuse(w, r.URL.Hostname(), be)
			return
		}
		http.Error(w, "unable to reach "+r.URL.Host+": "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "bad CONNECT target", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	up, err := p.dialer.DialContext(ctx, "tcp", r.Host)
	if err != nil {
		var be *BlockedError
		if errors.As(err, &be) {
			p.refuse(w, host, be)
			return
		}
		http.Error(w, "unable to reach "+r.Host+": "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "tunnelling not supported", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		up.Close()
		down.Close()
		return
	}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		// Bytes the client sent after CONNECT may already be buffered.
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			if _, err := up.Write(b); err != nil {
				closeWrite(up)
				return
			}
		}
		io.Copy(up, down)
		closeWrite(up)
	}()
	go func() {
		defer p.wg.Done()
		io.Copy(down, up)
		down.Close()
		up.Close()
	}()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
		return
	}
	c.Close()
}
