// Command runnable measures which stages of a folder's workspaces icm
// runs as their authors meant them (package runnable): each folder given
// stands for a repository, is copied to a temporary folder, and each of
// its workspaces is run stage by stage against a scripted model. It
// prints a table per workspace and the totals in Markdown.
//
//	go run ./server/internal/testutil/runnable/cmd/runnable [-ctx N] [-icm PATH] [-v] [-list] DIR...
//
// A folder given as DIR=WS1,WS2 is measured on those workspaces only
// (folders of DIR, "." for DIR itself); otherwise its workspaces are
// found. It sends nothing anywhere but to the scripted model it starts
// on 127.0.0.1.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/testutil/runnable"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "runnable:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("runnable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	window := fs.Int("ctx", 40960, "the scripted model's context window, in tokens")
	icm := fs.String("icm", "", "an icm executable for `command = \"icm\"` tool servers (default: none; such servers fail to start)")
	verbose := fs.Bool("v", false, "print each stage's outcome on standard error as it ends")
	list := fs.Bool("list", false, "only list the workspaces found in each folder, one a line")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: runnable [-ctx N] [-icm PATH] [-v] [-list] DIR[=WS,...]...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("name at least one folder")
	}
	var repos []runnable.Repo
	for _, a := range fs.Args() {
		dir, list, _ := strings.Cut(a, "=")
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", dir)
		}
		r := runnable.Repo{Name: filepath.Base(abs), Dir: abs}
		if list != "" {
			r.Workspaces = strings.Split(list, ",")
		}
		repos = append(repos, r)
	}
	if *list {
		return listWorkspaces(stdout, repos)
	}
	opts := runnable.Options{ContextLength: *window, Icm: *icm}
	if *verbose {
		opts.Progress = stderr
	}
	rep, err := runnable.Measure(ctx, repos, opts)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}

// listWorkspaces prints the workspaces each repository holds, as the
// measurement would run them, one "REPO WS" line each.
func listWorkspaces(w io.Writer, repos []runnable.Repo) error {
	for _, r := range repos {
		wss := r.Workspaces
		if wss == nil {
			var err error
			if wss, err = runnable.Workspaces(r.Dir); err != nil {
				return err
			}
		}
		for _, ws := range wss {
			fmt.Fprintf(w, "%s %s\n", r.Dir, ws)
		}
	}
	return nil
}
