// Command mcpfixture is the MCP server icm's tool tests start over stdio.
// Flags make it misbehave at start-up or on shutdown; -sleeper turns it into
// the grandchild that the spawn tool starts.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
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
