package check

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCheckLinksNoModelClient: icm check and the editor's diagnostics need
// neither the agent loop nor the model client (nor the critic, whose
// Thresholds parser lives in package contract). Linking them would make
// every keystroke's code path depend on the run's.
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
