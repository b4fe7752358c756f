package wstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// CopyWithSamples copies a shipped workspace (course-research or
// tech-article) with the sample outputs of testdata/sample-outputs.txtar,
// so every stage assembles with real inputs and the For each stages have
// items, and returns a function that writes the samples again (a stage
// run replaces its own output).
func CopyWithSamples(t testing.TB, name string) (string, func()) {
	t.Helper()
	arch, err := txtar.ParseFile(filepath.Join(RepoRoot(t), "server", "internal", "testutil", "wstest", "testdata", "sample-outputs.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := Copy(t, name)
	restore := func() {
		t.Helper()
		for _, f := range arch.Files {
			rel, ok := strings.CutPrefix(f.Name, name+"/")
			if !ok {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	restore()
	return dir, restore
}
