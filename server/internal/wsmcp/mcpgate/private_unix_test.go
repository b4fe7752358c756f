//go:build unix

package mcpgate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestATokenFileOfAnotherUserIsRefused: a file only its owner can read
// is still refused when the owner is someone else (who could read the
// token, or change it). Making such a file needs root.
func TestATokenFileOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, TokenFile)
	write(t, file, strings.Repeat("k", 43)+"\n", 0o600)
	if err := os.Chown(file, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Token(dir); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Fatalf("Token = %v, want a refusal naming another user", err)
	}
}
