package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/mcpserver/browser"
	"github.com/icm-tool/icm/server/internal/mcpserver/search"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/termsafe"
	"github.com/icm-tool/icm/server/internal/wsmcp/mcpgate"
)

// newMCPCmd is `icm mcp`: icm's own MCP tool servers. Each speaks MCP on
// stdin/stdout (or streamable HTTP with --http); stdout carries only MCP
// frames, logs go to stderr.
func newMCPCmd(env *Env, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Run one of icm's MCP servers (search, browser, ingest, workspace) or print a client's setup",
		Long: `Run one of icm's MCP servers. They speak MCP over stdin/stdout, so an MCP
client (icm itself, VS Code, a coding agent, the MCP Inspector) starts them as
a command; --http ADDR serves streamable HTTP at http://ADDR/mcp instead.
search, browser and ingest are tools for stages; workspace lets a coding agent
run stages through icm, and install prints a client's configuration for it.`,
	}
	cmd.AddCommand(newMCPSearchCmd(env), newMCPBrowserCmd(env), newMCPIngestCmd(env), newMCPWorkspaceCmd(env, g), newMCPInstallCmd(env, g))
	return cmd
}

// transportFlags are the flags both servers share.
type transportFlags struct {
	http string
}

func (t *transportFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.http, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio; on a loopback address, requests with another site's Host or Origin are refused")
}

func newMCPSearchCmd(env *Env) *cobra.Command {
	var tf transportFlags
	var searxng string
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Web search over SearXNG's JSON API (tool: search)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if searxng == "" {
				searxng = env.Getenv("SEARXNG_URL")
			}
			if searxng == "" {
				searxng = search.DefaultURL
			}
			logger := newLogger(env)
			logger.Info("search server", "searxng", searxng)
			srv := search.NewServer(search.Deps{Searcher: &search.Client{BaseURL: searxng}, Version: Version})
			return serveMCP(cmd.Context(), env, logger, srv, serving{addr: tf.http})
		},
	}
	tf.add(cmd)
	cmd.Flags().StringVar(&searxng, "searxng", "", "SearXNG base URL (default $SEARXNG_URL, else "+search.DefaultURL+")")
	return cmd
}

// browserFlags configure `icm mcp browser`.
type browserFlags struct {
	transportFlags
	allow      []string
	backend    string
	camofox    string
	chromium   string
	model      string
	ollama     string
	chunkChars int
	overlap    int
	parallel   int
	snippet    int
	cacheDir   string
	cacheTTL   time.Duration
	noCache    bool
	maxBytes   int64
	timeout    time.Duration
	idle       time.Duration
	redirects  int
}

func newMCPBrowserCmd(env *Env) *cobra.Command {
	var f browserFlags
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "Read web pages (tools: fetch_snippet, fetch_urls, fetch_structure, extract, summarize)",
		Long: `Read web pages for a model. Pages are fetched over plain HTTP by default
(--backend chromium renders script-heavy pages in headless Chromium, --camofox
URL uses a camofox-browser server), reduced to their main content as
Markdown, and for summarize and extract read whole through the model.

Only public http/https addresses are read: loopback, private, link-local,
CGNAT and other special-purpose addresses are refused on every redirect hop
unless --allow-host names them (an IP, a CIDR prefix, IP:port or a host name).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBrowser(cmd.Context(), env, &f)
		},
	}
	f.transportFlags.add(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.allow, "allow-host", nil, "also allow this non-public host (IP, CIDR, IP:port or name); repeatable")
	fl.StringVar(&f.backend, "backend", "", "page backend: http (default), chromium, or camofox (implied by --camofox)")
	fl.StringVar(&f.camofox, "camofox", "", "camofox-browser REST API base URL, e.g. http://localhost:9500")
	fl.StringVar(&f.chromium, "chromium-path", "", "Chromium binary for --backend chromium (default: chromium on PATH)")
	fl.StringVar(&f.model, "model", "", "model for summarize and extract (default $ICM_MODEL)")
	fl.StringVar(&f.ollama, "ollama", "", "Ollama base URL (default $OLLAMA_HOST, else http://127.0.0.1:11434)")
	fl.IntVar(&f.chunkChars, "chunk-chars", browser.DefaultChunkChars, "characters per chunk when reading a whole page")
	fl.IntVar(&f.overlap, "overlap", browser.DefaultOverlap, "characters repeated between neighbouring chunks")
	fl.IntVar(&f.parallel, "parallel", browser.DefaultParallel, "model calls in flight for one page (keep at or below OLLAMA_NUM_PARALLEL)")
	fl.IntVar(&f.snippet, "snippet-chars", browser.DefaultSnippetChars, "characters fetch_snippet shows")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "page cache folder (default: the user cache folder's icm/pages)")
	fl.DurationVar(&f.cacheTTL, "cache-ttl", 24*time.Hour, "how long cached pages and answers are reused")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the page cache")
	fl.Int64Var(&f.maxBytes, "max-bytes", fetch.DefaultMaxBytes, "largest page read, in bytes after decompression")
	fl.DurationVar(&f.timeout, "timeout", fetch.DefaultTimeout, "longest time to read one page")
	fl.DurationVar(&f.idle, "idle-timeout", fetch.DefaultIdleTimeout, "longest silence from a server while reading")
	fl.IntVar(&f.redirects, "max-redirects", fetch.DefaultMaxRedirects, "redirect hops followed")
	return cmd
}

func runBrowser(ctx context.Context, env *Env, f *browserFlags) error {
	logger := newLogger(env)
	fetcher, err := fetch.New(fetch.Options{
		Allow:        f.allow,
		MaxBytes:     f.maxBytes,
		Timeout:      f.timeout,
		IdleTimeout:  f.idle,
		MaxRedirects: f.redirects,
	})
	if err != nil {
		return fmt.Errorf("--allow-host: %w", err)
	}
	backend, closeBackend, err := pickBackend(f, fetcher, env.Stderr)
	if err != nil {
		return err
	}
	defer closeBackend()

	var cache *browser.Cache
	if !f.noCache {
		dir := f.cacheDir
		if dir == "" {
			if dir, err = browser.DefaultCacheDir(); err != nil {
				return err
			}
		}
		cache = &browser.Cache{Dir: dir, TTL: f.cacheTTL}
		if err := cache.Prune(); err != nil {
			logger.Warn("could not prune the page cache", "dir", dir, "err", err)
		}
	}

	reader := &browser.Reader{ChunkChars: f.chunkChars, Overlap: f.overlap, Parallel: f.parallel, Log: logger}
	model := f.model
	if model == "" {
		model = env.Getenv("ICM_MODEL")
	}
	if model != "" {
		cwd, _ := env.Getwd()
		if err := session.ReaderModel(reader, cwd, model, f.ollama, session.Options{Getenv: env.Getenv, Self: env.Self, Version: Version,
			Warn: func(msg string) { logger.Warn(msg) }}); err != nil {
			return err
		}
	} else {
		logger.Warn("no --model given: summarize and extract will say how to configure one")
	}
	logger.Info("browser server", "backend", backend.Name(), "model", model, "allow", strings.Join(f.allow, ","), "cache", cache != nil)
	srv := browser.NewServer(browser.Deps{
		Pages:        &browser.Loader{Backend: backend, Cache: cache},
		Reader:       reader,
		Cache:        cache,
		SnippetChars: f.snippet,
		Version:      Version,
	})
	return serveMCP(ctx, env, logger, srv, serving{addr: f.http})
}

func pickBackend(f *browserFlags, fetcher *fetch.Fetcher, stderr io.Writer) (browser.Backend, func(), error) {
	name := f.backend
	if name == "" && f.camofox != "" {
		name = "camofox"
	}
	switch name {
	case "", "http":
		return &browser.HTTPBackend{Fetcher: fetcher}, func() {}, nil
	case "chromium":
		if _, err := browser.ChromiumPath(f.chromium); err != nil {
			return nil, nil, fmt.Errorf("--backend chromium: %w", err)
		}
		b := &browser.ChromiumBackend{Fetcher: fetcher, Path: f.chromium, Timeout: f.timeout, MaxBytes: int(f.maxBytes), Stderr: io.Discard}
		return b, func() { _ = b.Close() }, nil
	case "camofox":
		if f.camofox == "" {
			return nil, nil, fault.InvalidRequest("--backend camofox needs --camofox URL (e.g. http://localhost:9500)", "name the Camofox server's address")
		}
		return &browser.CamofoxBackend{BaseURL: f.camofox, Fetcher: fetcher, MaxChars: int(f.maxBytes)}, func() {}, nil
	}
	return nil, nil, fault.InvalidRequest(fmt.Sprintf("--backend %q: use http, chromium or camofox", name), "choose the http, chromium or camofox backend")
}

func newLogger(env *Env) *slog.Logger {
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// serving is how serveMCP serves a server.
type serving struct {
	// addr serves streamable HTTP there; "" serves stdio.
	addr string
	// token, when set, is asked of every HTTP request; tokenFile is where
	// it is kept, for what a refusal says.
	token, tokenFile string
	// maxRequest caps one request in bytes, a line over stdio or a body
	// over HTTP; 0 reads requests whole.
	maxRequest int
}

// serveMCP serves srv on stdio, or on streamable HTTP when how.addr is
// set, until the input ends or ctx is cancelled.
func serveMCP(ctx context.Context, env *Env, logger *slog.Logger, srv *server.MCPServer, how serving) error {
	tooLarge := func() {
		logger.Warn("a request over the size cap was answered with an error, unread", "max bytes", how.maxRequest)
	}
	if how.addr == "" {
		stdio := server.NewStdioServer(srv)
		stdio.SetErrorLogger(log.New(env.Stderr, "mcp: ", log.LstdFlags))
		in, out := env.Stdin, termsafe.Raw(env.Stdout) // protocol frames, byte for byte
		if how.maxRequest > 0 {
			in, out = mcpgate.Stdio(in, out, how.maxRequest, tooLarge)
		}
		err := stdio.Listen(ctx, in, out)
		if err != nil && !errors.Is(err, context.Canceled) {
			return fault.Failed(fmt.Sprintf("MCP over stdio stopped: %v", err), "start the server again; its client may have gone", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", how.addr)
	if err != nil {
		return fmt.Errorf("unable to listen on %s for --http: %w", how.addr, err)
	}
	h := server.NewStreamableHTTPServer(srv)
	mux := http.NewServeMux()
	var handler http.Handler = h
	if how.maxRequest > 0 {
		handler = mcpgate.LimitBody(how.maxRequest, tooLarge, handler)
	}
	if how.token != "" {
		handler = mcpgate.RequireToken(how.token, how.tokenFile, handler)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		// Served to this machine: a page in a browser is not a client.
		handler = localOnly(handler)
	}
	mux.Handle("/mcp", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if how.token != "" {
		logger.Info("every request must carry the token kept in the config folder", "file", how.tokenFile)
	}
	logger.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fault.Failed(fmt.Sprintf("MCP over HTTP stopped: %v", err), "start the server again", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(sctx) // the MCP side; the HTTP server's error is the one to report
		return hs.Shutdown(sctx)
	}
}
