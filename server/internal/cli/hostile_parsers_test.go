package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes text at rel below dir.
func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNestedConfigIsAFinding: a config.toml of inline tables nested 2,000
// deep (12 KB) is an error of icm check at its line and column, found
// before the TOML library reads it. Failed before: check took 2.8 s and
// 300 MB to parse it and reported nothing (48 KB took 24 s and 4 GB).
func TestNestedConfigIsAFinding(t *testing.T) {
	dir := newWS(t, oneStage)
	writeFile(t, dir, "config.toml", "[model]\nname = \"tiny\"\nx = "+strings.Repeat("{b = ", 2000)+"1"+strings.Repeat("}", 2000)+"\n")
	stdout, stderr, err := runIn(t, dir, nil, "check")
	if err == nil || !strings.Contains(stdout+stderr, "config.toml:3:45") || !strings.Contains(stdout+stderr, "nested more than 8 deep") {
		t.Errorf("icm check: %v\n%s%s", err, stdout, stderr)
	}
}
