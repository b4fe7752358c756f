package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// TestSetupCommands: icm.setupPlan lists what icm setup would ask (the
// questionnaire's questions, with options and defaults); icm.setupSave
// writes the answers to [vars] in config.toml, after which nothing is
// left to ask.
func TestSetupCommands(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Notices for {{CLUB}}
-- setup/questionnaire.md --
# Setup

### Q1: What is the club called?
- Placeholder: `+"`{{CLUB}}`"+`

### Q2: Which day?
- Placeholder: `+"`{{DAY}}`"+`
- Options: Monday, Friday
- Default: Friday
-- stages/01-notice/CONTEXT.md --
# Stage: 01-notice

## Process
Write the notice for {{CLUB}} on {{DAY}}.

## Outputs
- notice.md -> output/
`)
	cfg := lsptest.Config{Root: dir}
	cfg.Options.Self = icmBin
	ed := lsptest.Start(t, cfg)
	raw, err := ed.ExecuteCommand("icm.setupPlan", map[string]any{"workspace": dir})
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Questionnaire string
		Asks          []struct {
			Vars     []string
			Question string
			Options  []string
			Default  string
		}
	}
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Questionnaire != "setup/questionnaire.md" || len(plan.Asks) != 2 || plan.Asks[1].Default != "Friday" ||
		strings.Join(plan.Asks[1].Options, ",") != "Monday,Friday" || plan.Asks[0].Vars[0] != "CLUB" {
		t.Fatalf("plan = %s", raw)
	}
	if _, err := ed.ExecuteCommand("icm.setupSave", map[string]any{"workspace": dir, "vars": map[string]string{"CLUB": "Herons", "DAY": "Monday"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil || !strings.Contains(string(data), "CLUB = \"Herons\"") || !strings.Contains(string(data), "DAY = \"Monday\"") {
		t.Fatalf("config.toml: %s %v", data, err)
	}
	ed.Await("nothing left to ask", func() bool {
		raw, err := ed.ExecuteCommand("icm.setupPlan", map[string]any{"workspace": dir})
		return err == nil && strings.Contains(string(raw), `"asks":[]`)
	})
	if _, err := ed.ExecuteCommand("icm.setupSave", map[string]any{"workspace": dir, "vars": map[string]string{"not a name": "x"}}); err == nil {
		t.Error("a bad variable name was saved")
	}
}
