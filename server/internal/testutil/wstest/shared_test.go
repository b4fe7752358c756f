package wstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/need"
)

// A clone with nothing beside it: a test reading ../shared skips (it
// does not fail), and where ../shared is there it gets the path.
func TestSharedBesideAFreshClone(t *testing.T) {
	t.Setenv(need.RequireAllEnv, "")
	top := t.TempDir()
	repo := filepath.Join(top, "icm")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	var inner *testing.T
	t.Run("no shared", func(t *testing.T) {
		inner = t
		sharedBeside(t, repo, "fixtures")
		t.Error("the test went on without ../shared")
	})
	if !inner.Skipped() || inner.Failed() {
		t.Errorf("without ../shared: skipped %v, failed %v", inner.Skipped(), inner.Failed())
	}
	want := filepath.Join(top, "shared", "fixtures")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := sharedBeside(t, repo, "fixtures"); got != want {
		t.Errorf("sharedBeside = %q, want %q", got, want)
	}
}
