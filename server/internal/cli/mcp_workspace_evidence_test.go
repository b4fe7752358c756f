package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
)

// The workspace server offers what a stage's outputs rest on as a
// resource, what `icm review --json` prints: an agent reads which of its
// lines no source supports before it asks a person to review.
func TestEvidenceIsAResourceOfTheWorkspaceServer(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	c := startMCP(t, dir, agentVars(t), "reader", nil, "mcp", "workspace")
	if uris := names(c.result("resources/list", map[string]any{}), "resources"); !strings.Contains(strings.Join(uris, "|"), "01-scope evidence") {
		t.Fatalf("resources: %v", uris)
	}
	handInScope(t, c)
	var rv report.Review
	if err := json.Unmarshal([]byte(c.readResource("icm://01-scope/evidence")), &rv); err != nil {
		t.Fatal(err)
	}
	if rv.Stage != "01-scope" || len(rv.Evidence) != 1 || rv.Evidence[0].Path != "pipeline/01-scope/output/objectives.md" || len(rv.Evidence[0].Units) != 4 || rv.EvidenceLine == "" {
		t.Errorf("the evidence resource: %+v", rv)
	}
	// A stage that never ran has nothing to show, and says so.
	if text := c.readResource("icm://02-research/evidence"); !strings.Contains(text, `"state": "pending"`) {
		t.Errorf("a stage that never ran:\n%s", text)
	}
}
