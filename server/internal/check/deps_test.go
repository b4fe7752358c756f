package check

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCheckLinksNoModelClient: the checks (what icm check reports and the
// editor's diagnostics show) need neither the agent loop nor the model
// client (nor the critic, whose Thresholds parser lives in package
// contract), so a check never waits on a model server. The editor's
// analysis does more than check: it counts each stage's tokens through the
// session, which asks the model server (lsp/counts.go); that part is
// bounded in time and its failure leaves the diagnostics as they are.
func TestCheckLinksNoModelClient(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"/internal/agent", "/internal/llm", "/internal/critic"} {
			if strings.HasSuffix(pkg, banned) {
				t.Errorf("check links %s", pkg)
			}
		}
	}
}
