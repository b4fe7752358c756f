package stagetest

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/sandbox"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// icmBin is icm itself, built once: the sample workspaces' MCP servers
// and the critique stage's script run it as a process.
var icmBin string

func TestMain(m *testing.M) {
	// The test binary also serves as the code sandbox's init and launcher
	// (the code-blocks check of a sample case).
	sandbox.Main()
	gobin.Main(m, map[*string]string{&icmBin: "github.com/icm-tool/icm/server/cmd/icm"})
}
