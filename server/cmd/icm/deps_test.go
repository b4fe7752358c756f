package main

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestHelper: icm links none of the test helpers
// (server/internal/testutil/...), nor the standard library's test
// packages. A helper in the binary is test code shipped to every person
// (and its flags, servers and fixtures with it), and deadcode cannot tell
// a helper only the tests use from one the binary needs. What the binary
// needs from a helper (the demo's canned servers) is a package of its own.
func TestBinaryLinksNoTestHelper(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{}
	var self string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
		self = f[0] // go list -deps prints the package itself last
	}
	if len(imports) < 50 {
		t.Fatalf("go list -deps listed %d packages for icm", len(imports))
	}
	pkgs := slices.Sorted(maps.Keys(imports))
	for _, pkg := range pkgs {
		if isTestHelper(pkg) {
			t.Errorf("icm links %s (%s): the binary must not carry test helpers; move what it needs into a package of its own",
				pkg, strings.Join(chain(imports, self, pkg), " -> "))
		}
	}
}

// isTestHelper reports whether pkg is test-only code.
func isTestHelper(pkg string) bool {
	return strings.Contains(pkg, "/internal/testutil/") || pkg == "testing" || strings.HasPrefix(pkg, "testing/") || pkg == "net/http/httptest"
}

// chain returns an import path from "from" to "to", so a failure says
// which import brought the helper in.
func chain(imports map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var out []string
			for ; p != ""; p = prev[p] {
				out = append([]string{strings.TrimPrefix(p, "github.com/icm-tool/icm/server/")}, out...)
			}
			return out
		}
		for _, q := range imports[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return []string{to}
}
