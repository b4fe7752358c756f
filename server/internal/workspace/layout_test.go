package workspace

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

const layoutContract = "# Stage\n\n## Process\nGo.\n\n## Outputs\n- a.md -> output/\n"

// TestTheLayoutHoldingTheContractsIsTaken: of two folders of numbered
// folders, icm takes the one whose folders hold the contracts (the most
// of them), and says why; with a single layout it says nothing.
func TestTheLayoutHoldingTheContractsIsTaken(t *testing.T) {
	for _, c := range []struct {
		name, files, dir, why string
		stages                int
	}{
		{"root beside a stages folder of outputs", "00_brief/CONTEXT.md 01-draft/CONTEXT.md stages/01-draft/output/a.md",
			".", "the numbered folders in stages/ hold no CONTEXT.md", 2},
		{"stages folder beside one root folder", "stages/01-a/CONTEXT.md stages/02-b/CONTEXT.md 03-c/CONTEXT.md",
			"stages", "1 of the numbered folders at the workspace root holds one", 2},
		{"a stage- prefix", "stages/stage-01-a/CONTEXT.md stages/stage-02-b/CONTEXT.md", "stages", "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			archive := "-- CLAUDE.md --\n# Id\n"
			for _, f := range strings.Fields(c.files) {
				body := "text\n"
				if strings.HasSuffix(f, ContractFile) {
					body = layoutContract
				}
				archive += "-- " + f + " --\n" + body
			}
			ws, err := Open(wstest.Write(t, archive), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if ws.StagesDir != c.dir || len(ws.Stages) != c.stages {
				t.Errorf("stages in %q (%d), want %q (%d)", ws.StagesDir, len(ws.Stages), c.dir, c.stages)
			}
			if (c.why == "") != (ws.StagesWhy == "") || !strings.Contains(ws.StagesWhy, c.why) {
				t.Errorf("why %q, want it to say %q", ws.StagesWhy, c.why)
			}
		})
	}
}
