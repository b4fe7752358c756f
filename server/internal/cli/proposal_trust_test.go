package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A change proposed outside output/ is applied only by an approval the
// trust decision allows: once the workspace names a command its person
// has not trusted, approving refuses to write outside output/ and leaves
// the file as it was; trusted, the same approval applies it.
func TestAProposedChangeIsAppliedOnlyWhenTrusted(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "m", ContextLength: 8192, Capabilities: []string{"completion", "tools"}}}})
	srv.On(ollamatest.Not(ollamatest.HasToolResult(""))).Reply(ollamatest.Calls(
		ollamatest.Call("write_output", map[string]any{"path": "_config/endpoint-map.md", "content": "# Endpoint map\n\n- GET /health\n"}),
		ollamatest.Call("write_output", map[string]any{"path": "output/notes.md", "content": "Notes.\n"})))
	srv.Default(ollamatest.Text("Wrote the map and the notes."))
	dir := wstest.Write(t, mapWithPartial)
	vars := map[string]string{"OLLAMA_HOST": srv.URL()}
	if out, errOut, code := runAsUser(t, dir, vars, "run"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errOut)
	}
	// A stage added since names a command: the workspace needs trust now.
	stamp := filepath.Join(dir, "stages/02-stamp/CONTEXT.md")
	if err := os.MkdirAll(filepath.Dir(stamp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stamp, []byte("# Stage: 02-stamp\n\n## Script\n```\ndate > \"$ICM_OUTPUT/stamp.txt\"\n```\n\n## Outputs\n- stamp.txt -> output/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const before = "# Endpoint map\n\n(to be filled in)\n"
	out, errOut, code := runAsUser(t, dir, vars, "approve", "01-map")
	if code == 0 || !strings.Contains(errOut, "apply the changes 01-map proposes to _config/endpoint-map.md") {
		t.Fatalf("approve, untrusted: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "_config/endpoint-map.md")); string(data) != before {
		t.Fatalf("an untrusted approval changed the file: %q", data)
	}
	if out, errOut, code := runAsUser(t, dir, vars, "--trust", "approve", "01-map"); code != 0 {
		t.Fatalf("approve, trusted: %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "_config/endpoint-map.md")); string(data) != "# Endpoint map\n\n- GET /health\n" {
		t.Errorf("the trusted approval did not apply the change: %q", data)
	}
}
