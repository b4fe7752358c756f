package workflow_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// icmBin is the icm binary built once for the tests that run it as a
// process (MCP servers over stdio, kill tests); fixtureBin is the test MCP
// server that misbehaves on request.
var icmBin, fixtureBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "icm-workflow-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	icmBin = filepath.Join(dir, "icm")
	fixtureBin = filepath.Join(dir, "mcpfixture")
	for bin, pkg := range map[string]string{icmBin: "github.com/icm-tool/icm/server/cmd/icm", fixtureBin: "github.com/icm-tool/icm/server/internal/tools/mcpfixture/cmd/mcpfixture"} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "unable to build", pkg, "for the tests:", err)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
