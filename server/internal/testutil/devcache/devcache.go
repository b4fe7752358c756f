// Package devcache is the developer's cache folder for slow, reusable
// test build products (the real Ollama server, its tiny models, icm
// itself as the tests run it), and the file lock that keeps two test
// processes from building the same product at once.
package devcache

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir returns the cache folder: $CACHE_DIR (the Makefile exports it) or
// else $HOME/.cache/icm-dev.
func Dir() (string, error) {
	if dir := os.Getenv("CACHE_DIR"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("unable to find the cache folder: CACHE_DIR is unset and %w", err)
	}
	return filepath.Join(home, ".cache", "icm-dev"), nil
}
