// Package golden compares what a test produced with a file kept in the
// repository, and rewrites the file when the test runs with -update. The
// files pin a surface other programs read (the language server's JSON,
// the MCP tools' descriptions): a change to them shows up as a diff that
// someone reviews, not as a silent drift.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce now")

// Check compares got with the file (rewriting it with -update), failing t
// with the new content when they differ.
func Check(t testing.TB, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the test produced now; if the change is meant, rerun with -update and review the diff:\n%s", file, got)
	}
}
