// Package gobin builds the programs a test binary runs as processes (icm
// itself, test MCP servers) once, before its tests.
package gobin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// Main is a TestMain body: it builds each package (import path) into a
// temporary folder, stores the executable's path in the variable it is
// keyed by, points ICM_CONFIG_DIR at an empty folder, runs the tests,
// removes the folder and exits with their code.
func Main(m *testing.M, bins map[*string]string) {
	dir, err := os.MkdirTemp("", "icm-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Build in a fixed order so a failure report is the same every time.
	pkgs := make([]string, 0, len(bins))
	dest := map[string]*string{}
	for v, pkg := range bins {
		pkgs = append(pkgs, pkg)
		dest[pkg] = v
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		exe := filepath.Join(dir, filepath.Base(pkg))
		cmd := exec.Command("go", "build", "-o", exe, pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "unable to build %s for the tests: %v\n", pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		*dest[pkg] = exe
	}
	// No test reads or writes the person's own trust records: every
	// test starts with an empty config folder (a test that trusts a
	// workspace makes its own, package trust/trusttest).
	cfg := filepath.Join(dir, "config")
	if err := os.Mkdir(cfg, 0o700); err != nil || os.Setenv("ICM_CONFIG_DIR", cfg) != nil {
		fmt.Fprintln(os.Stderr, "unable to make an empty config folder for the tests:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
