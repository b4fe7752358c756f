package act

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DefaultConnectTimeout bounds opening one connection when the caller
// does not say.
const DefaultConnectTimeout = 30 * time.Second

// HTTP says how a client made for an action connects, besides asking
// its permit.
type HTTP struct {
	// Timeout bounds one request with its answer (0: only the request's
	// context does).
	Timeout time.Duration
	// ConnectTimeout bounds opening one connection (default
	// DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// Dial, when set, opens each connection once the permit allows it:
	// the page reader's dialer, which holds every address to its policy.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Tune sets what the transport does besides connecting (idle
	// connections, TLS, the proxy); it starts as a clone of net/http's
	// default transport.
	Tune func(*http.Transport)
	// CheckRedirect is the client's redirect policy (nil: net/http's).
	// Whatever it allows, a redirect to another server than the action's
	// URL is refused.
	CheckRedirect func(req *http.Request, via []*http.Request) error
}

// HTTPClient is a client for a: every request asks p first, and, when
// a.URL is set, goes to that server only (same scheme, host and port); so
// does every connection it opens.
func HTTPClient(p Permit, a Action, o HTTP) *http.Client {
	return &http.Client{Transport: Transport(p, a, o), Timeout: o.Timeout, CheckRedirect: o.CheckRedirect}
}

// RoundTripper is HTTPClient's transport, for code that takes a
// transport rather than a client (a proxy passing requests on).
type RoundTripper struct {
	permit Permit
	action Action
	// origin is a.URL's scheme and host ("" for any server).
	origin string
	tr     *http.Transport
}

// Transport is the transport of HTTPClient(p, a, o).
func Transport(p Permit, a Action, o HTTP) *RoundTripper {
	rt := &RoundTripper{permit: p, action: a}
	if a.URL != "" {
		rt.origin = origin(a.URL)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	connect := o.ConnectTimeout
	if connect <= 0 {
		connect = DefaultConnectTimeout
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if o.Dial != nil {
			if err := Ask(p, a); err != nil {
				return nil, err
			}
			return o.Dial(ctx, network, addr)
		}
		return Dial(ctx, p, a, network, addr, Dialing{Timeout: connect, KeepAlive: 30 * time.Second})
	}
	if o.Tune != nil {
		o.Tune(tr)
	}
	rt.tr = tr
	return rt
}

// RoundTrip sends req when the permit allows the action and req goes to
// the action's server.
func (rt *RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	a := rt.action
	if rt.origin != "" && origin(req.URL.String()) != rt.origin {
		closeBody(req)
		other := a
		other.URL = req.URL.String()
		return nil, &Refusal{Action: other, Err: fmt.Errorf("a client made to contact %s reaches no other server", a.URL)}
	}
	if err := Ask(rt.permit, a); err != nil {
		closeBody(req)
		return nil, err
	}
	return rt.tr.RoundTrip(req)
}

// CloseIdleConnections closes the connections kept for reuse.
func (rt *RoundTripper) CloseIdleConnections() { rt.tr.CloseIdleConnections() }

// closeBody closes a request's body, as a RoundTripper must even when
// it sends nothing.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// origin is a URL's scheme, host and port, lower case, the port filled
// in from the scheme; the URL itself when it cannot be read.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Dialing says how Dial connects.
type Dialing struct {
	// Timeout bounds the connect (default DefaultConnectTimeout).
	Timeout time.Duration
	// KeepAlive is the TCP keep-alive period (0: Go's default).
	KeepAlive time.Duration
	// Control, when set, sees each address actually connected to before
	// the connect (the page reader's address policy).
	Control func(network, address string, c syscall.RawConn) error
}

// Dial opens one connection to addr for a, asked of p first.
func Dial(ctx context.Context, p Permit, a Action, network, addr string, d Dialing) (net.Conn, error) {
	if err := Ask(p, a); err != nil {
		return nil, err
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultConnectTimeout
	}
	nd := &net.Dialer{Timeout: d.Timeout, KeepAlive: d.KeepAlive, Control: d.Control}
	return nd.DialContext(ctx, network, addr)
}
