package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/fetch"
)

// ChromiumBackend reads pages in headless Chromium (Debian's chromium
// package) driven through the DevTools protocol, for pages whose text
// only exists after their scripts run. Every connection the browser makes
// goes through a local proxy that dials with the Fetcher's guarded
// dialer, so the address policy holds for the page, its redirects, its
// scripts and its subresources alike. Each Load opens a tab and closes it
// before returning; the browser process is started on first use and
// stopped by Close.
type ChromiumBackend struct {
	Fetcher *fetch.Fetcher
	// Path is the browser binary; empty means "chromium" on PATH.
	Path string
	// Timeout bounds one page load; zero means 30 s.
	Timeout time.Duration
	// Settle is the longest wait for a page's scripts to stop changing it
	// after the load event; zero means 2 s.
	Settle time.Duration
	// MaxBytes caps the rendered HTML; zero means fetch.DefaultMaxBytes.
	MaxBytes int
	// Stderr receives the browser's own output (nil discards it).
	Stderr io.Writer

	mu      sync.Mutex
	proxy   *fetch.Proxy
	browser context.Context
	stop    func()
}

// Name returns "chromium".
func (b *ChromiumBackend) Name() string { return "chromium" }

// ChromiumPath finds the browser binary: path when set, else chromium or
// chromium-browser on PATH.
func ChromiumPath(path string) (string, error) {
	if path != "" {
		return exec.LookPath(path)
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fault.Failed("chromium is not installed (on Debian: apt-get install chromium); or use the default http backend",
		"install Chromium, or read pages with the http backend", nil)
}

// start launches the browser and its proxy once.
func (b *ChromiumBackend) start() (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.browser != nil {
		return b.browser, nil
	}
	path, err := ChromiumPath(b.Path)
	if err != nil {
		return nil, err
	}
	proxy, err := fetch.StartProxy(b.Fetcher.Dialer())
	if err != nil {
		return nil, err
	}
	out := b.Stderr
	if out == nil {
		out = io.Discard
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		// All traffic, loopback included, goes through the guarded proxy.
		chromedp.ProxyServer("http://"+proxy.Addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.CombinedOutput(out),
		// The browser is icm's own; every connection it makes goes
		// through the guarded proxy above.
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			act.Guard(act.Own("the page reader's browser"), act.Action{Kind: act.Self, Reason: "the page reader's browser"}, cmd)
			dieWithParent(cmd)
		}),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(browserCtx); err != nil {
		cancelBrowser()
		cancelAlloc()
		proxy.Close()
		return nil, fmt.Errorf("unable to start %s: %w", path, err)
	}
	b.proxy = proxy
	b.browser = browserCtx
	b.stop = func() {
		ctx, cancel := context.WithTimeout(browserCtx, 5*time.Second)
		defer cancel()
		chromedp.Cancel(ctx)
		cancelBrowser()
		cancelAlloc()
		proxy.Close()
	}
	return browserCtx, nil
}

// Close stops the browser and its proxy.
func (b *ChromiumBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stop != nil {
		b.stop()
		b.stop, b.browser, b.proxy = nil, nil, nil
	}
	return nil
}

// Load renders url in a new tab and reads the resulting DOM.
func (b *ChromiumBackend) Load(ctx context.Context, rawURL string) (*Page, error) {
	u, err := b.Fetcher.Precheck(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	browserCtx, err := b.start()
	if err != nil {
		return nil, err
	}
	tab, closeTab := chromedp.NewContext(browserCtx)
	defer closeTab()
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	// The caller's cancellation ends the tab too.
	stopWatch := context.AfterFunc(ctx, cancel)
	defer stopWatch()

	resp, err := chromedp.RunResponse(tctx, chromedp.Navigate(u.String()))
	if err != nil {
		if blocked := b.proxy.Blocked(u.Hostname()); blocked != nil {
			return nil, blocked
		}
		return nil, fmt.Errorf("the browser could not load %s: %w", u, err)
	}
	if resp != nil {
		if msg, ok := resp.Headers[fetch.BlockedHeader].(string); ok && msg != "" {
			if blocked := b.proxy.Blocked(hostOf(resp.URL)); blocked != nil {
				return nil, blocked
			}
			return nil, errors.New(msg)
		}
		if resp.Status >= 400 {
			return nil, &fetch.StatusError{URL: resp.URL, Code: int(resp.Status)}
		}
	}
	html, final, err := b.settled(tctx)
	if err != nil {
		return nil, fmt.Errorf("the browser could not read %s: %w", u, err)
	}
	max := b.MaxBytes
	if max <= 0 {
		max = fetch.DefaultMaxBytes
	}
	if len(html) > max {
		return nil, &fetch.TooLargeError{URL: final, Limit: int64(max)}
	}
	return PageFromHTML(final, strings.NewReader(html))
}

// settled returns the DOM once two reads a short while apart agree (the
// page's scripts have stopped changing it) or Settle has passed.
func (b *ChromiumBackend) settled(ctx context.Context) (string, string, error) {
	settle := b.Settle
	if settle <= 0 {
		settle = 2 * time.Second
	}
	deadline := time.Now().Add(settle)
	var prev string
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	for {
		html, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
		if err != nil {
			return "", "", err
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			return "", "", err
		}
		if html == prev || time.Now().After(deadline) {
			return html, loc, nil
		}
		prev = html
		select {
		case <-ctx.Done():
			return "", "", ctx.Err()
		case <-tick.C:
		}
	}
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
