package wstest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A clone with nothing beside it gets the error a test skips on, naming
// the folder; a ../shared without the asked-for folder gets another
// error (a failure); where both are there, the path.
func TestSharedBesideAFreshClone(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "icm")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(top, "shared")
	if _, err := sharedPath(repo, "fixtures"); !errors.Is(err, errNoShared) || !strings.Contains(err.Error(), "no folder "+shared+" beside the repository") {
		t.Errorf("without ../shared: %v", err)
	}
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sharedPath(repo, "fixtures"); err == nil || errors.Is(err, errNoShared) {
		t.Errorf("../shared without fixtures: %v", err)
	}
	want := filepath.Join(shared, "fixtures")
	if err := os.Mkdir(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := sharedPath(repo, "fixtures"); got != want || err != nil {
		t.Errorf("sharedPath = %q, %v; want %q", got, err, want)
	}
}
