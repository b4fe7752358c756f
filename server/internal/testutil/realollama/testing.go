package realollama

import (
	"context"
	"errors"
	"os"
	"testing"
)

// Start launches a real Ollama server with the tiny model for one test and
// stops it (the whole process group) when the test ends. It skips the test
// under -short, and when the server cannot be built because the Debian
// headers are missing on a developer's machine; on CI (CI set) that is a
// failure instead, since .ci/run installs them.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("realollama: -short skips tests that start a real Ollama server")
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Launch(t.Context(), opts)
	if errors.Is(err, ErrHeadersMissing) && os.Getenv("CI") == "" {
		t.Skipf("\n"+
			"************************************************************\n"+
			"* SKIPPED: the real Ollama server cannot be built here.    *\n"+
			"* %v\n"+
			"************************************************************", err)
	}
	if err != nil {
		t.Fatalf("realollama: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("realollama: the end of the server log %s:\n%s", s.LogPath, s.LogTail())
		}
		// The test's context is already cancelled when cleanups run.
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("realollama: %v", err)
		}
	})
	return s
}
