package session

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/fault/faulttest"
	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// icmBin is icm itself, which the sample workspaces run as their MCP
// servers (`command = "icm"`); a test that runs a stage with tools sets
// it as the session's Self, since this test binary must never be started
// as one.
var icmBin string

func TestMain(m *testing.M) {
	gobin.Main(m, map[*string]string{&icmBin: "github.com/icm-tool/icm/server/cmd/icm"}, faulttest.NoneInternal)
}
