// Package gobin gives the tests the programs they run as processes (icm
// itself, test MCP servers), built once per change of their source and
// shared by every test package of the checkout: a test binary that needs
// icm does not link an icm of its own.
package gobin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// buildWait bounds building the programs (and waiting for another test
// process that builds them) before any test runs.
const buildWait = 15 * time.Minute

// Main is a TestMain body: it gets each package (import path) from Build,
// stores the executable's path in the variable it is keyed by, points
// ICM_CONFIG_DIR at an empty folder, runs the tests, removes the folder
// and exits with their code. Then each of after checks what the tests
// left behind: an error fails the package, printed.
func Main(m *testing.M, bins map[*string]string, after ...func() error) {
	code := run(m, bins)
	for _, check := range after {
		if err := check(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL after the tests:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func run(m *testing.M, bins map[*string]string) int {
	ctx, cancel := context.WithTimeout(context.Background(), buildWait)
	defer cancel()
	module, err := moduleDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
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
		exe, err := Build(ctx, module, pkg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "unable to build %s for the tests: %v\n", pkg, err)
			return 1
		}
		*dest[pkg] = exe
	}
	// No test reads or writes the person's own trust records: every
	// test starts with an empty config folder (a test that trusts a
	// workspace makes its own, package trust/trusttest).
	cfg, err := os.MkdirTemp("", "icm-test-config-")
	if err != nil || os.Setenv("ICM_CONFIG_DIR", cfg) != nil {
		fmt.Fprintln(os.Stderr, "unable to make an empty config folder for the tests:", err)
		return 1
	}
	defer os.RemoveAll(cfg)
	return m.Run()
}

// moduleDir is the folder of the go.mod that holds the working folder (a
// test runs in its package's folder).
func moduleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("unable to find the module to build in: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("unable to find the module to build in: no go.mod in %s or above", dir)
		}
	}
}
