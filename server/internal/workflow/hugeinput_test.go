package workflow_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

// Case 8 as it was seen: a 20 GB sparse input under a 4 GB address-space
// limit. icm check says the input is too large and exits normally, where
// it used to die trying to allocate it.
func TestHugeSparseInputUnderAMemoryLimit(t *testing.T) {
	h := newSmall(t, ollamatest.Config{})
	if err := os.Truncate(filepath.Join(h.dir, "pipeline/01-plan/idea.md"), 20<<30); err != nil {
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" check`, icmBin)
	cmd.Dir = h.dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("icm check under a 4 GB limit: %v\n%.3000s", err, out)
	}
	if !strings.Contains(string(out), "too large") {
		t.Errorf("check does not say the input is too large:\n%.3000s", out)
	}
}
