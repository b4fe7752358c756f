// Command mcpfixture is the MCP server icm's tool tests start over stdio.
// Flags make it misbehave at start-up or on shutdown; -sleeper turns it into
// the grandchild that the spawn tool starts.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/icm-tool/icm/server/internal/tools/mcpfixture"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	pidDir := flag.String("piddir", "", "record this process's pid in DIR/PID.pid")
	stubborn := flag.Bool("stubborn", false, "ignore SIGTERM and keep running after stdin closes")
	exitAtStart := flag.Int("exit-at-start", -1, "exit with this code before serving")
	sleeper := flag.Bool("sleeper", false, "be a grandchild: record the pid and sleep")
	ignoreTerm := flag.Bool("ignore-term", false, "with -sleeper: ignore SIGTERM")
	name := flag.String("name", "mcpfixture", "server name")
	await := flag.Int("await", 0, "before serving, wait until -piddir holds this many pid files (proves parallel start-up)")
	flag.Parse()

	if *pidDir != "" {
		if err := mcpfixture.WritePID(*pidDir); err != nil {
			fmt.Fprintf(os.Stderr, "mcpfixture: %v\n", err)
			os.Exit(1)
		}
	}
	if *sleeper {
		sleep(*ignoreTerm)
		return
	}
	if *exitAtStart >= 0 {
		fmt.Fprintln(os.Stderr, "fixture: refusing to start (exit-at-start)")
		os.Exit(*exitAtStart)
	}
	if *await > 0 {
		if err := awaitPeers(*pidDir, *await); err != nil {
			fmt.Fprintf(os.Stderr, "mcpfixture: %v\n", err)
			os.Exit(1)
		}
	}
	if *stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpfixture: %v\n", err)
		os.Exit(1)
	}
	s := mcpfixture.New(mcpfixture.Options{
		Name:     *name,
		Process:  true,
		Stderr:   os.Stderr,
		Exit:     os.Exit,
		SelfPath: self,
		PIDDir:   *pidDir,
	})
	stdio := server.NewStdioServer(s)
	err = stdio.Listen(signalContext(*stubborn), os.Stdin, os.Stdout)
	if *stubborn {
		// Pretend to be a server that does not notice its client leaving.
		select {}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpfixture: %v\n", err)
		os.Exit(1)
	}
}

// awaitPeers polls the pid directory until n processes have recorded
// themselves; servers started one after another never get there.
func awaitPeers(dir string, n int) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		m, err := filepath.Glob(filepath.Join(dir, "*.pid"))
		if err != nil {
			return err
		}
		if len(m) >= n {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("only some of %d peers started within 30s", n)
}

// sleep is the grandchild: tell the spawner (fd 3) the pid is recorded,
// then wait to be killed.
func sleep(ignoreTerm bool) {
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if ready := os.NewFile(3, "ready"); ready != nil {
		ready.Close()
	}
	for {
		time.Sleep(time.Hour)
	}
}
