package promptcount_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/gobin"
)

// icmBin is icm itself, which the sample workspaces run as their MCP
// servers: the tool definitions counted come from them.
var icmBin string

func TestMain(m *testing.M) {
	gobin.Main(m, map[*string]string{&icmBin: "github.com/icm-tool/icm/server/cmd/icm"})
}
