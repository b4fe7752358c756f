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
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	go cli.OnSignal(sigs, cancel, cli.ShutdownGrace, os.Exit, os.Stderr)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel(nil)
	os.Exit(code)
}
