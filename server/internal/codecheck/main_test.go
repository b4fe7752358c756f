package codecheck

import (
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/sandbox"
)

// The test binary serves as the sandbox's init and launcher.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

func needSandbox(t testing.TB) {
	t.Helper()
	if err := sandbox.Available(); err != nil {
		t.Skip(err)
	}
}
