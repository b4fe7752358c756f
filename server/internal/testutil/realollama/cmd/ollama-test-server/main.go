// Command ollama-test-server builds the real Ollama server (or reuses the
// cached build), creates the tiny test model in a temporary model folder
// and serves it on a free loopback port until interrupted. With -build-only
// it only builds, which lets CI pay for the cold build before the tests.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ollama-test-server:", err)
		os.Exit(1)
	}
}

func run() error {
	buildOnly := flag.Bool("build-only", false, "build (or find) the server and print its path, then exit")
	parallel := flag.Int("parallel", 1, "OLLAMA_NUM_PARALLEL for the server")
	verbose := flag.Bool("v", false, "copy the build output and the server log to stderr")
	flag.Parse()

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	opts := realollama.Options{NumParallel: *parallel}
	if *verbose {
		opts.Log = os.Stderr
	}
	fmt.Fprintln(os.Stderr, "building or reusing the Ollama server (the first build takes minutes)...")
	if *buildOnly {
		bin, err := realollama.Build(ctx, realollama.BuildOptions{Log: opts.Log})
		if err != nil {
			return err
		}
		fmt.Println(bin.Path)
		return nil
	}

	srv, err := realollama.Launch(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Printf("OLLAMA_HOST=%s\nmodel: %s (context length %d)\nserver log: %s\n", srv.URL, srv.Model, srv.ContextLength, srv.LogPath)
	fmt.Fprintln(os.Stderr, "serving; press Ctrl-C to stop")

	var exitErr error
	select {
	case <-ctx.Done():
	case <-srv.Done():
		exitErr = fmt.Errorf("the server exited by itself; its log ends:\n%s", srv.LogTail())
	}
	return errors.Join(exitErr, srv.Stop(context.Background()))
}
