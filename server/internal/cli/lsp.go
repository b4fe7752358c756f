package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/icm-tool/icm/server/internal/lsp"
	"github.com/icm-tool/icm/server/internal/termsafe"
)

func newLSPCmd(env *Env) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server on stdio (for editors)",
		Long: `The language server gives editors live diagnostics on stage contracts (the
findings of icm check), hovers with the assembled context and token counts,
completion, links, code lenses and commands to run, probe and approve stages.
It speaks LSP 3.16 on stdin/stdout; logs go to stderr. --port serves TCP on
127.0.0.1 instead, for debugging with a client that connects to a socket.
Exit status: 0 after the client's shutdown and exit, 1 when the client goes
away without shutting down.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := lsp.Options{Version: Version, Log: env.Stderr, Getenv: env.Getenv}
			if port > 0 {
				return serveTCP(cmd.Context(), env, opts, port)
			}
			// Protocol frames, byte for byte.
			code := lsp.New(opts).Serve(cmd.Context(), stdio{env.Stdin, termsafe.Raw(env.Stdout)})
			if code != 0 {
				return &ExitError{Code: code}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "serve LSP over TCP on 127.0.0.1:PORT instead of stdio (debugging)")
	return cmd
}

// stdio joins the process's standard input and output into one stream.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close closes standard input, which ends the read loop.
func (s stdio) Close() error {
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// serveTCP accepts connections on the loopback address, one server each.
func serveTCP(ctx context.Context, env *Env, opts lsp.Options, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("unable to listen on %s: %w", addr, err)
	}
	defer ln.Close()
	fmt.Fprintf(env.Stderr, "icm lsp: listening on %s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("unable to accept a connection on %s: %w", addr, err)
		}
		go lsp.New(opts).Serve(ctx, conn)
	}
}
