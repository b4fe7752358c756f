//go:build linux

package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/reap"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// fixtureBin is the test MCP server, built once for the test binary.
var fixtureBin string

func TestMain(m *testing.M) {
	gobin.Main(m, map[*string]string{&fixtureBin: "github.com/icm-tool/icm/server/internal/tools/mcpfixture/cmd/mcpfixture"})
}

// fixture gives a test its own pid directory, in which every fixture
// process (server or grandchild) records itself, and checks at the end of
// the test that none of them is still alive.
type fixture struct {
	t      *testing.T
	pidDir string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, pidDir: t.TempDir()}
	// Registered first, so it runs after every cleanup that closes sessions.
	t.Cleanup(func() {
		for _, pid := range f.pids() {
			if alive(pid) {
				t.Errorf("fixture process %d is still running after the test", pid)
				_ = killPid(pid)
			}
		}
	})
	return f
}

// server is a stdio entry running the fixture with extra flags.
func (f *fixture) server(name string, flags ...string) Server {
	args := append([]string{"-piddir", f.pidDir, "-name", name}, flags...)
	return Server{Name: name, Transport: TransportStdio, Command: fixtureBin, Args: args, Source: "test"}
}

// pids lists the processes that recorded themselves.
func (f *fixture) pids() []int {
	matches, _ := filepath.Glob(filepath.Join(f.pidDir, "*.pid"))
	var out []int
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(m), ".pid"))
		if err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// testOptions keep shutdown quick; deadlines stay long unless a test is
// about them, so a slow machine cannot turn a pass into a timeout. Their
// permit allows every server, as a trusted workspace's allows the
// servers it names.
func testOptions() Options {
	return Options{CallTimeout: time.Minute, StartTimeout: time.Minute, ShutdownGrace: 500 * time.Millisecond, Permit: allowAll}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	p, ok := reap.Stat(pid)
	return ok && p.Live()
}

func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
