package realollama

import (
	"context"
	"errors"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/need"
)

// Start launches a real Ollama server with the tiny model for one test and
// stops it (the whole process group) when the test ends. It skips the test
// under -short, and when the server cannot be built because the Debian
// headers are missing on a developer's machine; under
// need.RequireAllEnv (.ci/run, which installs them) that is a failure.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("realollama: -short skips tests that start a real Ollama server")
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Launch(t.Context(), opts)
	if errors.Is(err, ErrHeadersMissing) {
		need.Missing(t, "the real Ollama test server", err.Error())
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

// NeedQwen3 returns the path of Qwen3's tokenizer.json. When the npm
// package holding it is not installed, need.Missing ends the test (a skip,
// or under need.RequireAllEnv a failure); any other error fails it.
func NeedQwen3(t testing.TB) string {
	t.Helper()
	path, err := Qwen3TokenizerPath()
	if errors.Is(err, ErrQwen3Missing) {
		need.Missing(t, "Qwen3's tokenizer", err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}
