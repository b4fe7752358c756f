package cli

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// fixtureBin is a test MCP server (tools echo, add, ...) that workspaces
// in these tests configure, since icm's own servers would be this test
// binary here.
var fixtureBin string

func TestMain(m *testing.M) {
	// Every command, its error paths and wsmcp's tools run here: none may
	// show an error that nobody gave a kind.
	gobin.Main(m, map[*string]string{&fixtureBin: "github.com/icm-tool/icm/server/internal/tools/mcpfixture/cmd/mcpfixture"},
		faulttest.NoneInternal)
}
