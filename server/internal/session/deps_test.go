package session

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontEndsImportOnlyTheSession: the CLI and the language server
// reach models, tools, runs, stage tests, history and tracing only
// through this package. Importing the engine's packages themselves is how
// a front end starts composing clients or reading history on its own, and
// how the two drift apart (issue 22).
func TestFrontEndsImportOnlyTheSession(t *testing.T) {
	const mod = "github.com/icm-tool/icm/server/internal/"
	banned := []string{"llm", "tools", "workflow", "stagetest", "telemetry", "agent"}
	for _, front := range []string{"cli", "lsp"} {
		out, err := exec.CommandContext(t.Context(), "go", "list", "-f", `{{join .Imports "\n"}}`, "../"+front).Output()
		if err != nil {
			t.Fatal(err)
		}
		imports := strings.Fields(string(out))
		if len(imports) == 0 {
			t.Fatalf("go list found no imports of %s", front)
		}
		for _, imp := range imports {
			for _, b := range banned {
				if imp == mod+b {
					t.Errorf("%s imports %s: call the session for it", front, imp)
				}
			}
		}
	}
}
