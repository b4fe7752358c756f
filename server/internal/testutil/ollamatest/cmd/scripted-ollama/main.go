// Command scripted-ollama serves a scripted, Ollama-compatible model server
// on a loopback port, for the VS Code end-to-end test and make demos:
//
//	scripted-ollama [-addr 127.0.0.1:0] SCRIPT.json
//
// It prints "listening on http://127.0.0.1:PORT" on stdout once it accepts
// connections, logs one line per request on stderr, and exits cleanly on
// SIGINT or SIGTERM. The script format is described in the ollamatest
// package doc.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-ollama:", err)
		os.Exit(2)
	}
}

// run serves the script named in args until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scripted-ollama", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: scripted-ollama [-addr 127.0.0.1:PORT] SCRIPT.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("give exactly one script file")
	}
	script, err := ollamatest.ReadScriptFile(fs.Arg(0))
	if err != nil {
		return err
	}
	cfg := script.Config()
	cfg.OnAnswered = func(r ollamatest.Record) { fmt.Fprintln(stderr, r) }
	srv, err := ollamatest.Listen(*addr, cfg)
	if err != nil {
		return err
	}
	script.Apply(srv.Engine)
	fmt.Fprintf(stdout, "listening on %s\n", srv.URL())
	<-ctx.Done()
	return srv.Close()
}
