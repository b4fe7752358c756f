package workflow_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// icmBin is the icm binary built once for the tests that run it as a
// process (MCP servers over stdio, kill tests); fixtureBin is the test MCP
// server that misbehaves on request.
var icmBin, fixtureBin string

func TestMain(m *testing.M) {
	gobin.Main(m, map[*string]string{
		&icmBin:     "github.com/icm-tool/icm/server/cmd/icm",
		&fixtureBin: "github.com/icm-tool/icm/server/internal/tools/mcpfixture/cmd/mcpfixture",
	})
}
