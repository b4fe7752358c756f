package contract_test

import (
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
)

// A setup-time variable in a Script command or a run: check is filled
// from [vars] as in every other place of the contract, so what runs is
// what icm trust lists; an unset one stays as written.
func TestCommandsFillSetupVariables(t *testing.T) {
	src := []byte("# Stage: 01-site\n\n## Script\n```sh\nmake {{TARGET}} DIR={{OUT_DIR}}\n```\n\n## Verify\n- run: ./check.sh {{TARGET}}\n\n## Outputs\n- site.md -> output/\n")
	c := contract.ParseWith("CONTEXT.md", src, contract.Options{Vars: contract.Vars{"TARGET": "docs"}})
	if c.Script == nil || c.Script.Command != "make docs DIR={{OUT_DIR}}" {
		t.Fatalf("script = %+v", c.Script)
	}
	var run string
	for _, v := range c.Verify {
		if v.Kind == "run" {
			run = v.Arg
		}
	}
	if run != "./check.sh docs" {
		t.Errorf("run: check = %q", run)
	}
}
