// Command icm runs Interpretable Context Methodology workspaces: the CLI,
// the language server (icm lsp) and icm's own MCP tool servers (icm mcp).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/icm-tool/icm/server/internal/cli"
	"github.com/icm-tool/icm/server/internal/sandbox"
)

func main() {
	// When started as the code sandbox's init or launcher, do only that.
	sandbox.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
