package codecheck

import (
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/sandbox"
	"github.com/icm-tool/icm/server/internal/testutil/need"
)

// The test binary serves as the sandbox's init and launcher.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

func needSandbox(t testing.TB) {
	t.Helper()
	need.Check(t, "the code sandbox", sandbox.Available())
}
