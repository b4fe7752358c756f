package fetch

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
)

// Defaults for Options left zero.
const (
	DefaultMaxRedirects = 5
	DefaultMaxBytes     = 8 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultIdleTimeout  = 10 * time.Second
	DefaultUserAgent    = "icm-reader/1 (+https://github.com/icm-tool/icm)"
)

// Options configure a Fetcher. Zero values take the defaults above.
type Options struct {
	// Allow lists addresses and hosts that may be reached even though they
	// are not public (see NewPolicy for the forms).
	Allow []string
	// Resolver looks names up; nil means the system resolver.
	Resolver Resolver
	// MaxRedirects caps the redirect hops of one fetch.
	MaxRedirects int
	// MaxBytes caps the body after decompression.
	MaxBytes int64
	// MaxWireBytes caps the body as sent (compressed); zero means MaxBytes.
	MaxWireBytes int64
	// Timeout bounds a whole fetch: connects, redirects and the body.
	Timeout time.Duration
	// IdleTimeout ends a fetch that receives nothing for this long.
	IdleTimeout time.Duration
	UserAgent   string
	// Guard is an extra connect-time check (see Dialer.Guard).
	Guard func(netip.AddrPort) error
}

// Fetcher reads pages under a Policy. It is safe for concurrent use.
type Fetcher struct {
	opts   Options
	dialer *Dialer
	client *http.Client
}

// Response is a fetched page.
type Response struct {
	// URL is the final address, after redirects.
	URL         string
	StatusCode  int
	ContentType string
	Body        []byte
	// Redirects counts the hops followed.
	Redirects int
}

// New builds a Fetcher.
func New(opts Options) (*Fetcher, error) {
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxWireBytes == 0 {
		opts.MaxWireBytes = opts.MaxBytes
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	pol, err := NewPolicy(opts.Allow)
	if err != nil {
		return nil, err
	}
	f := &Fetcher{opts: opts}
	f.dialer = &Dialer{Policy: pol, Resolver: opts.Resolver, Timeout: opts.IdleTimeout, Guard: opts.Guard}
	f.client = act.HTTPClient(own(), contact(), act.HTTP{Dial: f.dialer.DialContext, CheckRedirect: f.checkRedirect, Tune: func(tr *http.Transport) {
		// No proxy from the environment: a proxy would connect for us and
		// the address check would never see the real destination.
		tr.Proxy = nil
		tr.ForceAttemptHTTP2 = true
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		tr.TLSHandshakeTimeout = opts.IdleTimeout
		tr.ResponseHeaderTimeout = opts.IdleTimeout
		tr.MaxResponseHeaderBytes = 64 << 10
		// Decompression is done here, so both the wire and the inflated
		// size can be capped.
		tr.DisableCompression = true
		tr.MaxIdleConns = 16
		tr.IdleConnTimeout = 30 * time.Second
	}})
	return f, nil
}

// Dialer returns the guarded dialer, for callers (a browser's proxy) that
// make their own connections under the same policy.
func (f *Fetcher) Dialer() *Dialer { return f.dialer }

// CheckURL parses a model-supplied URL and returns it cleaned (userinfo
// dropped) or an error that says what is wrong with it.
func CheckURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &URLError{URL: raw, Msg: "it is not a valid URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, &URLError{URL: raw, Msg: "it has no scheme; write the full address starting with https://"}
	default:
		return nil, &URLError{URL: raw, Msg: fmt.Sprintf("the %s: scheme is not allowed; only http and https pages can be read", u.Scheme)}
	}
	if u.Hostname() == "" {
		return nil, &URLError{URL: raw, Msg: "it has no host"}
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.User = nil
	return u, nil
}

// Precheck refuses a URL whose scheme or host the policy does not accept,
// without connecting. Backends that do not connect through the Dialer
// (an external browser) use it before handing the URL over.
func (f *Fetcher) Precheck(ctx context.Context, raw string) (*url.URL, error) {
	u, err := CheckURL(raw)
	if err != nil {
		return nil, err
	}
	if err := f.dialer.Precheck(ctx, u.Hostname(), portOf(u)); err != nil {
		return nil, err
	}
	return u, nil
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.opts.MaxRedirects {
		return &RedirectError{URL: via[0].URL.String(), Max: f.opts.MaxRedirects}
	}
	u, err := f.Precheck(req.Context(), req.URL.String())
	if err != nil {
		return err
	}
	req.URL = u
	return nil
}

// Fetch reads rawURL. It fails with *URLError, *BlockedError,
// *RedirectError, *TooLargeError, *TimeoutError or *StatusError when the
// policy or a limit stops it, and with a wrapped network error otherwise.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Response, error) {
	ctx, cancelTotal := context.WithTimeoutCause(ctx, f.opts.Timeout, errTotal)
	defer cancelTotal()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dog := newWatchdog(f.opts.IdleTimeout, func() { cancel(errIdle) })
	defer dog.stop()

	u, err := f.Precheck(ctx, rawURL)
	if err != nil {
		return nil, f.sortErr(ctx, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &URLError{URL: rawURL, Msg: err.Error()}
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.sortErr(ctx, err)
	}
	defer resp.Body.Close()
	dog.kick()

	out := &Response{
		URL:         resp.Request.URL.String(),
		StatusCode:  resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Redirects:   redirectsOf(resp),
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, &StatusError{URL: out.URL, Code: resp.StatusCode}
	}
	if resp.ContentLength > f.opts.MaxWireBytes {
		return out, &TooLargeError{URL: out.URL, Limit: f.opts.MaxWireBytes}
	}
	body, err := f.readBody(resp, dog)
	if err != nil {
		return out, f.sortErr(ctx, err)
	}
	out.Body = body
	return out, nil
}

func redirectsOf(resp *http.Response) int {
	n := 0
	for r := resp.Request; r != nil && r.Response != nil; r = r.Response.Request {
		n++
	}
	return n
}

// readBody reads the body under both byte caps, kicking the idle watchdog
// as bytes arrive.
func (f *Fetcher) readBody(resp *http.Response, dog *watchdog) ([]byte, error) {
	url := resp.Request.URL.String()
	wire := &capReader{r: resp.Body, left: f.opts.MaxWireBytes, onRead: dog.kick, err: &TooLargeError{URL: url, Limit: f.opts.MaxWireBytes}}
	var r io.Reader = wire
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		gz, err := gzip.NewReader(wire)
		if err != nil {
			return nil, fmt.Errorf("unable to read the gzip body of %s: %w", url, err)
		}
		defer gz.Close()
		r = gz
	default:
		return nil, fmt.Errorf("unable to read %s: it is sent with content encoding %q, which was not asked for", url, enc)
	}
	inflated := &capReader{r: r, left: f.opts.MaxBytes, err: &TooLargeError{URL: url, Limit: f.opts.MaxBytes}}
	body, err := io.ReadAll(inflated)
	if err != nil {
		return nil, err
	}
	return body, nil
}

// sortErr turns a cancelled context into the timeout that caused it and
// digs the policy's own errors out of the transport's wrapping.
func (f *Fetcher) sortErr(ctx context.Context, err error) error {
	var (
		blocked  *BlockedError
		badURL   *URLError
		redirect *RedirectError
		large    *TooLargeError
		status   *StatusError
	)
	switch {
	case errors.As(err, &blocked):
		return blocked
	case errors.As(err, &badURL):
		return badURL
	case errors.As(err, &redirect):
		return redirect
	case errors.As(err, &large):
		return large
	case errors.As(err, &status):
		return status
	}
	switch context.Cause(ctx) {
	case errIdle:
		return &TimeoutError{Phase: "idle", Limit: f.opts.IdleTimeout}
	case errTotal:
		return &TimeoutError{Phase: "total", Limit: f.opts.Timeout}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{Phase: "idle", Limit: f.opts.IdleTimeout}
	}
	return err
}
