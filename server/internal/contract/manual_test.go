package contract

import (
	"strings"
	"testing"
)

// A stage that is the person's step, not a model's, is told apart by
// what its contract says: outputs no model can write, commands that make
// its outputs, or work in the world (a deploy, a sign-off) and no file.
// Every other stage is a model's, however much it mentions commands.
func TestManualStepsAreToldApart(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		why        string // "" for a model stage
	}{
		{"only a database", "## Process\nImport the table into the database.\n\n## Outputs\n- output/history.db\n", "history.db"},
		{"commands make the output", "## Process\nCollect the log.\n\n## Commands\n\n```bash\ngit log --oneline > output/log.txt\n```\n\n## Outputs\n- output/log.txt\n", "log.txt"},
		{"a deploy and a sign-off", "## Process\n1. Deploy the site to the host.\n2. The owner checks it and signs off.\n\n## Outputs\n- Live site on the host\n- The owner's sign-off\n", "in the world"},
		{"a book and a build command", "## Process\n1. Run `./build.sh --pdf` from the top folder.\n2. Tick the checklist.\n\n## Outputs\n| Artifact | Location |\n|---|---|\n| Book | `handbook.pdf` |\n| Checklist | `notes/checklist.md` |\n", "handbook.pdf"},
		{"the repository itself", "## Process\nBuild the application.\n\n## Outputs\n| Artifact | Location |\n|---|---|\n| Working app | `../../` |\n", "repository"},

		{"a report and an example command", "## Process\nExplain how to run the tests, e.g.\n\n```sh\nmake test\n```\n\n## Outputs\n- report.md -> output/\n", ""},
		{"reports in words", "## Process\nReview the change.\n\n## Outputs\n- A review report with findings\n- A list of questions\n", ""},
		{"data the model writes", "## Process\nList the leads as JSON.\n\n## Outputs\n- leads.json -> output/\n", ""},
		{"a command that files the output away", "## Process\nWrite the recipe to `output/recipe.yaml`.\n\n## Copy to Archive\n\n```bash\ncp output/recipe.yaml ../archive/done/\ncat output/recipe.yaml | wc -l\n```\n\n## Outputs\n- recipe.yaml -> output/\n", ""},
		{"a command writes it with its output flag", "## Process\nRender the chart.\n\n```sh\nchartgen data.csv -o output/chart.svg\n```\n\n## Outputs\n- output/chart.svg\n", "chart.svg"},
		{"facts of finished work", "## Outputs\n- Stack confirmed: a static site on a small host\n- Dates read with a date library\n", ""},
	} {
		c := Parse("/ws/stages/03-x/CONTEXT.md", []byte("# Stage: 03-x\n\n"+tc.body))
		m := c.Manual()
		switch {
		case tc.why == "" && m != nil:
			t.Errorf("%s: a model stage read as manual: %+v", tc.name, m)
		case tc.why != "" && m == nil:
			t.Errorf("%s: not read as a manual step", tc.name)
		case tc.why != "" && !strings.Contains(m.Why, tc.why):
			t.Errorf("%s: why = %q, want it to name %q", tc.name, m.Why, tc.why)
		case tc.why != "" && !strings.Contains(m.Steps, strings.Split(strings.TrimPrefix(tc.body, "## Process\n"), "\n")[0]):
			t.Errorf("%s: steps = %q, want the contract's own words", tc.name, m.Steps)
		}
	}
	script := Parse("/ws/stages/03-x/CONTEXT.md", []byte("# Stage: 03-x\n\n## Script\n\n```sh\nmake > output/a.db\n```\n\n## Outputs\n- output/a.db\n"))
	if m := script.Manual(); m != nil {
		t.Errorf("a Script stage (icm runs it) read as manual: %+v", m)
	}
}
